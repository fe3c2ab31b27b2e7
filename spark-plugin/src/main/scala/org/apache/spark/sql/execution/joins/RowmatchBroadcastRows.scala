package org.apache.spark.sql.execution.joins

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The rows of a broadcast HashedRelation, for Rowmatch's broadcast hash join to build its own table from.
 *
 * It lives in Spark's package only because HashedRelation is `private[execution]`; it is the one place the
 * plugin needs that type. Reading the rows back keeps Spark's broadcast exchange (and AQE's stage reuse)
 * untouched. Rows whose key has a null are not in the relation, which is harmless: a broadcast join never
 * outputs unmatched build rows, and such rows never match. A null-aware relation (NOT IN) that met a null
 * key keeps no rows at all and is recognized by its type ([[hasNullKey]]).
 */
object RowmatchBroadcastRows {
  /** A null-aware relation built from a side with a null key (Spark then keeps no probe row). */
  def hasNullKey(relation: Any): Boolean = relation == HashedRelationWithAllNullKeys

  /**
   * The relation's rows; with `onePerKey`, only the first row stored under each key (a semi or anti join
   * without a condition asks only whether a key exists, and a build side of 1.5M rows over 100K keys then
   * becomes 100K rows to convert and hash).
   */
  def rows(relation: Any, onePerKey: Boolean): java.util.Iterator[InternalRow] = relation match {
    case HashedRelationWithAllNullKeys | EmptyHashedRelation => java.util.Collections.emptyIterator()
    case r: LongHashedRelation =>
      // keys() visits each key once here; the rows come from lookups.
      val copy = r.asReadOnlyCopy()
      val keys = copy.keys()
      (if (onePerKey) keys.map(k => copy.get(k).next()) else keys.flatMap(k => copy.get(k))).asJava
    case r: HashedRelation =>
      val copy = r.asReadOnlyCopy()
      try {
        // Every stored row once, in the relation's own order, without key lookups (UnsafeHashedRelation walks
        // its map). A key index names one key of the relation.
        val values = copy.valuesWithKeyIndex()
        if (onePerKey) {
          val seen = new java.util.BitSet()
          values.filter { v =>
            val i = v.getKeyIndex
            val first = !seen.get(i)
            seen.set(i)
            first
          }.map(_.getValue).asJava
        } else {
          values.map(_.getValue).asJava
        }
      } catch {
        case _: UnsupportedOperationException =>
          // keys() may repeat a key once per row stored under it (UnsafeHashedRelation); visit each key once.
          val seen = new java.util.HashSet[InternalRow]()
          val keys = copy.keys().filter(k => seen.add(k.copy()))
          (if (onePerKey) keys.map(k => copy.get(k).next()) else keys.flatMap(k => copy.get(k))).asJava
      }
    case other =>
      throw new IllegalStateException(
        s"RowmatchHashJoin expects a broadcast HashedRelation, got ${if (other == null) "null" else other.getClass}")
  }
}
