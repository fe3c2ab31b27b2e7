package org.apache.spark.sql.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLShuffleReadMetricsReporter}
import org.apache.spark.{Dependency, MapOutputTrackerMaster, Partition, ShuffleDependency, SparkEnv, TaskContext}

/** One read partition of the Arrow shuffle: which map outputs and reducers it covers (AQE's spec). */
private final class RowmatchShuffledRecordsPartition(override val index: Int, val spec: ShufflePartitionSpec)
  extends Partition

/**
 * The read side of Rowmatch's Arrow shuffle: the encoded records of the reducers (and map outputs) each
 * partition spec names, as Spark's ShuffledRowRDD reads UnsafeRows. The specs are AQE's (coalesced,
 * skew-split and local reads); without AQE there is one coalesced spec per reducer.
 *
 * It lives in Spark's package because per-task shuffle read metrics (`createTempShuffleReadMetrics`) and
 * map locations are `private[spark]`.
 */
final class RowmatchShuffledRecordsRDD(
    var dependency: ShuffleDependency[Int, Array[Byte], Array[Byte]],
    metrics: Map[String, SQLMetric],
    partitionSpecs: Array[ShufflePartitionSpec])
  extends RDD[Array[Byte]](dependency.rdd.context, Nil) {

  def this(dependency: ShuffleDependency[Int, Array[Byte], Array[Byte]], metrics: Map[String, SQLMetric]) =
    this(dependency, metrics,
      Array.tabulate[ShufflePartitionSpec](dependency.partitioner.numPartitions)(i =>
        CoalescedPartitionSpec(i, i + 1)))

  override def getDependencies: Seq[Dependency[_]] = List(dependency)

  override def getPartitions: Array[Partition] =
    Array.tabulate[Partition](partitionSpecs.length)(i => new RowmatchShuffledRecordsPartition(i, partitionSpecs(i)))

  override def getPreferredLocations(partition: Partition): Seq[String] = {
    val tracker = SparkEnv.get.mapOutputTracker.asInstanceOf[MapOutputTrackerMaster]
    partition.asInstanceOf[RowmatchShuffledRecordsPartition].spec match {
      case CoalescedPartitionSpec(startReducer, endReducer, _) =>
        (startReducer until endReducer).flatMap(r => tracker.getPreferredLocationsForShuffle(dependency, r))
      case PartialReducerPartitionSpec(_, startMap, endMap, _) => tracker.getMapLocation(dependency, startMap, endMap)
      case PartialMapperPartitionSpec(map, _, _) => tracker.getMapLocation(dependency, map, map + 1)
      case CoalescedMapperPartitionSpec(startMap, endMap, _) => tracker.getMapLocation(dependency, startMap, endMap)
    }
  }

  override def compute(split: Partition, context: TaskContext): Iterator[Array[Byte]] = {
    val reporter = new SQLShuffleReadMetricsReporter(context.taskMetrics().createTempShuffleReadMetrics(), metrics)
    val manager = SparkEnv.get.shuffleManager
    val handle = dependency.shuffleHandle
    val reader = split.asInstanceOf[RowmatchShuffledRecordsPartition].spec match {
      case CoalescedPartitionSpec(startReducer, endReducer, _) =>
        manager.getReader[Int, Array[Byte]](handle, 0, Int.MaxValue, startReducer, endReducer, context, reporter)
      case PartialReducerPartitionSpec(reducer, startMap, endMap, _) =>
        manager.getReader[Int, Array[Byte]](handle, startMap, endMap, reducer, reducer + 1, context, reporter)
      case PartialMapperPartitionSpec(map, startReducer, endReducer) =>
        manager.getReader[Int, Array[Byte]](handle, map, map + 1, startReducer, endReducer, context, reporter)
      case CoalescedMapperPartitionSpec(startMap, endMap, numReducers) =>
        manager.getReader[Int, Array[Byte]](handle, startMap, endMap, 0, numReducers, context, reporter)
    }
    reader.read().map(_._2)
  }

  override def clearDependencies(): Unit = {
    super.clearDependencies()
    dependency = null
  }
}
