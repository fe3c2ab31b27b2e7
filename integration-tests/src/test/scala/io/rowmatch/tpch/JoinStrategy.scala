package io.rowmatch.tpch

/**
 * A join strategy forced with Spark's own settings: the vanilla equi-join operator it must produce, and
 * those it must not. (Joins Spark cannot plan as equi-joins, e.g. null-aware anti joins without a
 * broadcast, become nested-loop joins under every strategy.)
 */
final case class JoinStrategy(name: String, settings: Map[String, String], operator: String, forbidden: Seq[String])

object JoinStrategy {
  val SortMerge: JoinStrategy = JoinStrategy("sort-merge", Map(
    "spark.sql.autoBroadcastJoinThreshold" -> "-1",
    "spark.sql.join.preferSortMergeJoin" -> "true",
    "spark.sql.join.forceApplyShuffledHashJoin" -> "false",
    "spark.sql.adaptive.maxShuffledHashJoinLocalMapThreshold" -> "0"),
    "SortMergeJoin", Seq("BroadcastHashJoin", "ShuffledHashJoin"))

  val Broadcast: JoinStrategy = JoinStrategy("broadcast", Map(
    "spark.sql.autoBroadcastJoinThreshold" -> (1L << 30).toString,
    "spark.sql.join.preferSortMergeJoin" -> "true",
    "spark.sql.join.forceApplyShuffledHashJoin" -> "false",
    "spark.sql.adaptive.maxShuffledHashJoinLocalMapThreshold" -> "0"),
    "BroadcastHashJoin", Seq("SortMergeJoin", "ShuffledHashJoin"))

  /**
   * spark.sql.join.forceApplyShuffledHashJoin only works when Spark itself is under test (Utils.isTesting),
   * so it is silently ignored here. What forces shuffled hash joins in a normal session is AQE: when every
   * shuffle partition of a join side is below maxShuffledHashJoinLocalMapThreshold (which must be at least
   * the advisory partition size), the sort-merge join is re-planned as a shuffled hash join. AQE can
   * only do that for a join whose sides both come straight from a shuffle, so a join stacked on another
   * join's output without an exchange in between stays sort-merge (2 of Q11's and Q18's joins at SF 0.01):
   * sort-merge joins are allowed here, broadcast joins are not.
   */
  val ShuffledHash: JoinStrategy = JoinStrategy("shuffled-hash", Map(
    "spark.sql.autoBroadcastJoinThreshold" -> "-1",
    "spark.sql.join.preferSortMergeJoin" -> "false",
    "spark.sql.join.forceApplyShuffledHashJoin" -> "false",
    "spark.sql.adaptive.enabled" -> "true",
    "spark.sql.adaptive.maxShuffledHashJoinLocalMapThreshold" -> (1L << 30).toString),
    "ShuffledHashJoin", Seq("BroadcastHashJoin"))

  val All: Seq[JoinStrategy] = Seq(SortMerge, Broadcast, ShuffledHash)
}
