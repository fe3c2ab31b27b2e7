package org.apache.spark.sql.execution.joins

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Every row of a broadcast HashedRelation, key by key, for Rowmatch's broadcast hash join.
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

  def rows(relation: Any): java.util.Iterator[InternalRow] = relation match {
    case HashedRelationWithAllNullKeys | EmptyHashedRelation => java.util.Collections.emptyIterator()
    case r: HashedRelation =>
      val copy = r.asReadOnlyCopy()
      // keys() repeats a key once per row stored under it (UnsafeHashedRelation); visit each key once.
      val seen = new java.util.HashSet[InternalRow]()
      copy.keys().filter(k => seen.add(k.copy())).flatMap(k => copy.get(k)).asJava
    case other =>
      throw new IllegalStateException(
        s"RowmatchHashJoin expects a broadcast HashedRelation, got ${if (other == null) "null" else other.getClass}")
  }
}
