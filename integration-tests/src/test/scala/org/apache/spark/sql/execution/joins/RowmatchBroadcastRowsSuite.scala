package org.apache.spark.sql.execution.joins

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}
import org.apache.spark.sql.types.{DataType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/**
 * The rows Rowmatch's broadcast join reads back from Spark's relations: every stored row exactly once, or
 * with `onePerKey` exactly one stored row per key, for both relation kinds Spark broadcasts (a single long
 * key makes a LongHashedRelation, anything else an UnsafeHashedRelation). Here in Spark's package because
 * HashedRelation is private to it.
 */
class RowmatchBroadcastRowsSuite extends AnyFunSuite {
  /** 100 keys with 1 to 5 rows each (duplicated keys), a row with a null key (never stored), in shuffled order. */
  private def input(key: Long => Any, keyType: DataType): Seq[InternalRow] = {
    val rnd = new scala.util.Random(7)
    val rows = for (k <- 0L until 100L; copy <- 0 until 1 + (k % 5).toInt)
      yield InternalRow(key(k), k * 1000 + copy)
    val withNull = rows :+ InternalRow(null, -1L)
    val toUnsafe = UnsafeProjection.create(Array[DataType](keyType, LongType))
    rnd.shuffle(withNull).map(r => toUnsafe(r).copy())
  }

  private def relation(rows: Seq[InternalRow], keyType: DataType): HashedRelation =
    HashedRelation(rows.iterator, Seq(BoundReference(0, keyType, nullable = true)))

  private def read(rel: HashedRelation, onePerKey: Boolean): Seq[(Any, Long)] =
    RowmatchBroadcastRows.rows(rel, onePerKey).asScala.map { r =>
      (if (r.isNullAt(0)) null else r.get(0, rel match { case _: LongHashedRelation => LongType; case _ => StringType })
        match { case s: UTF8String => s.toString; case other => other },
        r.getLong(1))
    }.toSeq

  for ((name, keyType, key) <- Seq[(String, DataType, Long => Any)](
    ("LongHashedRelation (one long key)", LongType, k => k),
    ("UnsafeHashedRelation (a string key)", StringType, k => UTF8String.fromString("key " + k)))) {

    test(s"$name: every stored row once, or one stored row per key") {
      val rows = input(key, keyType)
      val rel = relation(rows, keyType)
      keyType match {
        case LongType => assert(rel.isInstanceOf[LongHashedRelation])
        case _ => assert(rel.isInstanceOf[UnsafeHashedRelation])
      }
      def plain(k: Long): Any = key(k) match { case s: UTF8String => s.toString; case other => other }
      val expected = (for (k <- 0L until 100L; copy <- 0 until 1 + (k % 5).toInt) yield (plain(k), k * 1000 + copy))
        .sortBy(_._2)
      val all = read(rel, onePerKey = false)
      assert(all.sortBy(_._2) == expected, "every row with a non-null key, each once")

      val one = read(rel, onePerKey = true)
      assert(one.size == 100, s"one row per key: ${one.size} rows")
      assert(one.map(_._1).distinct.size == 100, "no key twice")
      assert(one.forall(expected.contains), "only stored rows")
      rel.close()
    }
  }
}
