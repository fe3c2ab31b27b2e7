package org.apache.spark.sql.execution

import scala.concurrent.Future

import org.apache.spark.{MapOutputStatistics, ShuffleDependency, SparkContext}

/**
 * Runs the map side of a shuffle as its own job, as AQE needs for a query stage. In Spark's package
 * because `SparkContext.submitMapStage` is `private[spark]`; Spark's ShuffleExchangeExec calls the same.
 */
object RowmatchMapStage {
  /** No job when the map side has no partitions (AQE reads a null statistics as an empty stage). */
  def submit(sc: SparkContext, dependency: ShuffleDependency[_, _, _], mapPartitions: Int): Future[MapOutputStatistics] =
    if (mapPartitions == 0) Future.successful(null) else sc.submitMapStage(dependency)
}
