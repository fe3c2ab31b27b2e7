package io.rowmatch.spark.shuffle

import scala.jdk.CollectionConverters._

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.plans.logical.Statistics
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.exchange.{ShuffleExchangeExec, ShuffleExchangeLike, ShuffleOrigin}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics, SQLShuffleReadMetricsReporter, SQLShuffleWriteMetricsReporter}
import org.apache.spark.sql.execution.{RowmatchMapStage, RowmatchShuffledRecordsRDD, ShufflePartitionSpec, SparkPlan, SQLExecution}
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.{ShuffleDependency, TaskContext}

import io.rowmatch.spark.arrow.ArrowBatchConsumer
import io.rowmatch.spark.arrow.ArrowBatchProducer
import io.rowmatch.spark.arrow.ArrowSettings

/**
 * A shuffle that moves Arrow batches: each map task encodes its batches column by column into one record
 * per partition, Spark's shuffle (sort shuffle manager, compression, checksums, external shuffle service)
 * moves the bytes, and the read side appends the records back into Arrow batches. It replaces
 * ShuffleExchangeExec under Rowmatch operators, so no row conversion happens on either side of the shuffle.
 *
 * It is a ShuffleExchangeLike, so AQE runs it as a query stage and keeps its statistics, coalescing,
 * skew splits and local reads (getShuffleRDD takes AQE's partition specs). Partition ids come from
 * Spark's own partitioning expression, so the same key lands in the same partition as with a vanilla
 * exchange.
 */
case class RowmatchShuffleExchangeExec(
    override val outputPartitioning: Partitioning,
    child: SparkPlan,
    shuffleOrigin: ShuffleOrigin,
    advisoryPartitionSize: Option[Long],
    settings: ArrowSettings)
  extends ShuffleExchangeLike with ArrowBatchProducer with ArrowBatchConsumer {

  override def nodeName: String = "RowmatchShuffleExchange"

  override def supportsColumnar: Boolean = true

  private lazy val writeMetrics = SQLShuffleWriteMetricsReporter.createShuffleWriteMetrics(sparkContext)
  private lazy val readMetrics = SQLShuffleReadMetricsReporter.createShuffleReadMetrics(sparkContext)

  override lazy val metrics: Map[String, SQLMetric] = Map(
    // "data size" is what vanilla's exchange would report for the same rows (their UnsafeRow size), so AQE's
    // broadcast decisions over Rowmatch stages match vanilla's; the bytes actually encoded are their own metric.
    "dataSize" -> SQLMetrics.createSizeMetric(sparkContext, "data size"),
    "encodedSize" -> SQLMetrics.createSizeMetric(sparkContext, "encoded size"),
    "numPartitions" -> SQLMetrics.createMetric(sparkContext, "number of partitions"),
    "rowsWritten" -> SQLMetrics.createMetric(sparkContext, "shuffle rows written")) ++ readMetrics ++ writeMetrics

  @transient lazy val inputRDD: RDD[ColumnarBatch] = child.executeColumnar()

  // The statistics type is private[spark]: RowmatchMapStage names it.
  @transient override lazy val mapOutputStatisticsFuture =
    RowmatchMapStage.submit(sparkContext, shuffleDependency, inputRDD.getNumPartitions)

  override def numMappers: Int = shuffleDependency.rdd.getNumPartitions

  override def numPartitions: Int = shuffleDependency.partitioner.numPartitions

  override def shuffleId: Int = shuffleDependency.shuffleId

  override def getShuffleRDD(partitionSpecs: Array[ShufflePartitionSpec]): RDD[ColumnarBatch] =
    decode(new RowmatchShuffledRecordsRDD(shuffleDependency, readMetrics, partitionSpecs))

  /** Rows, not records: AQE reads the row count (an empty stage lets it drop joins). */
  override def runtimeStatistics: Statistics =
    Statistics(metrics("dataSize").value, Some(metrics("rowsWritten").value))

  @transient lazy val shuffleDependency: ShuffleDependency[Int, Array[Byte], Array[Byte]] = {
    val n = outputPartitioning.numPartitions
    val partitioning = outputPartitioning
    val output = child.output
    val sch = schema
    val rows = longMetric("rowsWritten")
    val dataSize = longMetric("dataSize")
    val records = inputRDD.mapPartitions { batches =>
      val ids = SparkPartitionIds.create(partitioning, output)
      new ShuffleMapRecords(batches.asJava, ids, n, new PartitionedBatchEncoder(sch),
        (k: Long, bytes: Long) => { rows += k; dataSize += bytes })
        .asScala.asInstanceOf[Iterator[Product2[Int, Array[Byte]]]]
    }
    val dependency = new ShuffleDependency[Int, Array[Byte], Array[Byte]](
      records,
      new PartitionIdPartitioner(n),
      new ShuffleRecordSerializer(longMetric("encodedSize")),
      shuffleWriterProcessor = ShuffleExchangeExec.createShuffleWriteProcessor(writeMetrics))
    metrics("numPartitions").set(n)
    SQLMetrics.postDriverMetricUpdates(sparkContext,
      sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY), metrics("numPartitions") :: Nil)
    dependency
  }

  private def decode(records: RDD[Array[Byte]]): RDD[ColumnarBatch] = {
    val sch = schema
    val s = settings
    records.mapPartitions { it =>
      ShuffleBatchDecoder.forTask(it.asJava, sch, s, TaskContext.get()).asScala
    }
  }

  /** Reused when several plans read this exchange (Spark does the same for its ShuffledRowRDD). */
  @transient private var cachedShuffleRDD: RDD[ColumnarBatch] = null

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = synchronized {
    if (cachedShuffleRDD == null) {
      cachedShuffleRDD = decode(new RowmatchShuffledRecordsRDD(shuffleDependency, readMetrics))
    }
    cachedShuffleRDD
  }

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar; Spark should have added ColumnarToRowExec")

  override def simpleString(maxFields: Int): String =
    s"$nodeName $outputPartitioning, $shuffleOrigin, ${settings}"

  override protected def withNewChildInternal(newChild: SparkPlan): RowmatchShuffleExchangeExec =
    copy(child = newChild)
}
