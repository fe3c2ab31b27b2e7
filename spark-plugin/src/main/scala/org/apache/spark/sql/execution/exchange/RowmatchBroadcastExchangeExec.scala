package org.apache.spark.sql.execution.exchange

import java.util.concurrent.{Future, TimeoutException, TimeUnit}

import scala.concurrent.Promise
import scala.concurrent.duration.NANOSECONDS
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.spark.{broadcast, SparkEnv}
import org.apache.spark.io.CompressionCodec
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Alias
import org.apache.spark.sql.catalyst.plans.logical.Statistics
import org.apache.spark.sql.catalyst.plans.physical.{BroadcastPartitioning, Partitioning}
import org.apache.spark.sql.errors.QueryExecutionErrors
import org.apache.spark.sql.execution.adaptive.BroadcastQueryStageExec
import org.apache.spark.sql.execution.joins.HashedRelationBroadcastMode
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.{InputAdapter, ProjectExec, SparkPlan, SQLExecution, WholeStageCodegenExec}
import org.apache.spark.sql.types.LongType
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.util.SparkFatalException

import io.rowmatch.spark.arrow.ArrowBatchConsumer
import io.rowmatch.spark.join.ArrowBroadcast

/**
 * A broadcast for Rowmatch joins: the build side's Arrow batches are encoded (the Arrow shuffle's record
 * format) and compressed on the executors, collected and broadcast as they are. No HashedRelation is built
 * on the driver, and each executor builds its join table once, shared by its tasks (BroadcastJoinTables).
 *
 * A BroadcastExchangeLike, so AQE runs it as a broadcast stage, reuses it for equal build sides and reads
 * its statistics (the size vanilla's hash relation would take, see hashedRelationBytes); Spark's limits (row
 * count, spark.sql.maxBroadcastTableSize on that size) and spark.sql.broadcastTimeout raise Spark's own errors.
 * Only Rowmatch joins read it (ReplaceOperators puts it under them and nowhere else); a vanilla join left
 * over one gets Spark's exchange back ({@link RowmatchBroadcastExchangeExec.vanillaBuild}). In Spark's
 * package for Spark's broadcast thread pool, errors and codec, which are private to Spark.
 */
case class RowmatchBroadcastExchangeExec(mode: HashedRelationBroadcastMode, child: SparkPlan)
  extends BroadcastExchangeLike with ArrowBatchConsumer {

  override def nodeName: String = "RowmatchBroadcastExchange"

  override def consumesArrow(child: Int): Boolean = true

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "dataSize" -> SQLMetrics.createSizeMetric(sparkContext, "data size"),
    "encodedSize" -> SQLMetrics.createSizeMetric(sparkContext, "encoded size"),
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "collectTime" -> SQLMetrics.createTimingMetric(sparkContext, "time to collect"),
    "broadcastTime" -> SQLMetrics.createTimingMetric(sparkContext, "time to broadcast"))

  override def outputPartitioning: Partitioning = BroadcastPartitioning(mode)

  override def doCanonicalize(): SparkPlan =
    RowmatchBroadcastExchangeExec(mode.canonicalized.asInstanceOf[HashedRelationBroadcastMode], child.canonicalized)

  override def runtimeStatistics: Statistics =
    Statistics(metrics("dataSize").value, Some(metrics("numOutputRows").value))

  // Materialized once; its metrics must survive AQE's re-planning, as Spark's broadcast's do.
  override def resetMetrics(): Unit = ()

  @transient private lazy val promise = Promise[broadcast.Broadcast[Any]]()

  @transient override lazy val completionFuture: scala.concurrent.Future[broadcast.Broadcast[Any]] = promise.future

  @transient private val timeout: Long = conf.broadcastTimeout

  /** Spark's own row limit for a broadcast (that of a hash relation over bytes keys, the smaller one). */
  private val maxBroadcastRows: Long = 341000000L

  @transient override lazy val relationFuture: Future[broadcast.Broadcast[Any]] = {
    SQLExecution.withThreadLocalCaptured[broadcast.Broadcast[Any]](session, BroadcastExchangeExec.executionContext) {
      try {
        sparkContext.addJobTag(jobTag)
        sparkContext.setInterruptOnCancel(true)
        val start = System.nanoTime()
        val codec = if (sparkContext.conf.getBoolean("spark.broadcast.compress", true)) {
          CompressionCodec.getShortName(CompressionCodec.getCodecName(sparkContext.conf))
        } else null
        val schema = child.schema
        val parts = child.executeColumnar().mapPartitions { batches =>
          Iterator.single(ArrowBroadcast.encode(batches.asJava, schema, codec))
        }.collect()
        val value = ArrowBroadcast.of(parts, codec)
        longMetric("numOutputRows") += value.rows()
        if (value.rows() >= maxBroadcastRows) {
          throw QueryExecutionErrors.cannotBroadcastTableOverMaxTableRowsError(maxBroadcastRows, value.rows())
        }
        val dataSize = RowmatchBroadcastExchangeExec.hashedRelationBytes(mode, value.rows(), value.unsafeRowBytes())
        longMetric("dataSize") += dataSize
        longMetric("encodedSize") += value.bytes()
        val maxBytes = conf.maxBroadcastTableSizeInBytes
        if (dataSize >= maxBytes) {
          throw QueryExecutionErrors.cannotBroadcastTableOverMaxTableBytesError(maxBytes, dataSize)
        }
        val beforeBroadcast = System.nanoTime()
        longMetric("collectTime") += NANOSECONDS.toMillis(beforeBroadcast - start)
        val broadcasted = sparkContext.broadcastInternal(value.asInstanceOf[Any], serializedOnly = true)
        longMetric("broadcastTime") += NANOSECONDS.toMillis(System.nanoTime() - beforeBroadcast)
        SQLMetrics.postDriverMetricUpdates(sparkContext,
          sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY), metrics.values.toSeq)
        promise.trySuccess(broadcasted)
        broadcasted
      } catch {
        case e if !NonFatal(e) =>
          val ex = new SparkFatalException(e)
          promise.tryFailure(ex)
          throw ex
        case e: Throwable =>
          promise.tryFailure(e)
          throw e
      }
    }
  }

  override protected def doPrepare(): Unit = relationFuture

  override protected def doExecute(): RDD[InternalRow] =
    throw QueryExecutionErrors.executeCodePathUnsupportedError(nodeName)

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] =
    throw QueryExecutionErrors.executeCodePathUnsupportedError(nodeName)

  override protected[sql] def doExecuteBroadcast[T](): broadcast.Broadcast[T] = {
    try {
      relationFuture.get(timeout, TimeUnit.SECONDS).asInstanceOf[broadcast.Broadcast[T]]
    } catch {
      case ex: TimeoutException =>
        logError(s"Could not execute broadcast in $timeout secs.", ex)
        if (!relationFuture.isDone) {
          sparkContext.cancelJobsWithTag(jobTag, "The corresponding broadcast query has failed.")
          relationFuture.cancel(true)
        }
        throw QueryExecutionErrors.executeBroadcastTimeoutError(timeout, Some(ex))
    }
  }

  override def simpleString(maxFields: Int): String = s"$nodeName $mode"

  override protected def withNewChildInternal(newChild: SparkPlan): RowmatchBroadcastExchangeExec =
    copy(child = newChild)
}

object RowmatchBroadcastExchangeExec {
  /**
   * The size vanilla's broadcast reports for the same rows: its HashedRelation's allocation, which AQE reads
   * as the stage's size (and joins above multiply). Mostly whole memory pages: a LongHashedRelation (one long
   * key) starts from a 1 MB page grown by doubling, an UnsafeHashedRelation fills pages of the memory
   * manager's page size with key and value rows plus 8 bytes of lengths each; both add two longs a slot, at
   * most 70% of the slots used.
   */
  def hashedRelationBytes(mode: HashedRelationBroadcastMode, rows: Long, unsafeRowBytes: Long): Long = {
    def pow2(n: Long): Long = if (n <= 1) 1 else java.lang.Long.highestOneBit(n - 1) << 1
    val slots = pow2((rows * 1.5 + 1).toLong) * 16
    if (mode.key.length == 1 && mode.key.head.dataType == LongType) {
      math.max(1L << 20, pow2(unsafeRowBytes + 8 * rows)) + slots
    } else {
      val keyBytes = 8L * ((mode.key.length + 63) / 64) + 8L * mode.key.length
      val records = unsafeRowBytes + (keyBytes + 8) * rows
      val page = Option(SparkEnv.get).map(_.memoryManager.pageSizeBytes).getOrElse(16L << 20)
      math.max(1, (records + page - 1) / page) * page + slots
    }
  }

  /** Whether the plan is (a stage of, or a reuse of) a Rowmatch broadcast: only Rowmatch joins can read it. */
  def isArrowBroadcast(plan: SparkPlan): Boolean = plan match {
    case _: RowmatchBroadcastExchangeExec => true
    case s: BroadcastQueryStageExec => isArrowBroadcast(s.plan)
    case r: ReusedExchangeExec => isArrowBroadcast(r.child)
    case _ => false
  }

  /**
   * Spark's broadcast exchange over the same rows, for a vanilla join that a re-planning left over a Rowmatch
   * broadcast (it reads a HashedRelation). The build side runs again as rows; its output keeps the exprIds
   * the join refers to. The new exchange becomes a new stage, which AQE plans again (transitions, codegen
   * stages): it gets the build side as planned before that, see [[asPlannedBeforeStage]].
   */
  def vanillaBuild(plan: SparkPlan): SparkPlan = {
    def exchange(p: SparkPlan): RowmatchBroadcastExchangeExec = p match {
      case e: RowmatchBroadcastExchangeExec => e
      case s: BroadcastQueryStageExec => exchange(s.plan)
      case r: ReusedExchangeExec => exchange(r.child)
      case other => throw new IllegalArgumentException(s"not a Rowmatch broadcast: ${other.nodeName}")
    }
    val e = exchange(plan)
    val build = asPlannedBeforeStage(e.child)
    val rows = if (plan.output.map(_.exprId) == build.output.map(_.exprId)) build
    else ProjectExec(build.output.zip(plan.output).map { case (from, to) =>
      Alias(from, to.name)(exprId = to.exprId)
    }, build)
    BroadcastExchangeExec(e.mode, rows)
  }

  /**
   * A stage's plan without what AQE added when it made the stage: its codegen stages (collapsing them again
   * would nest one whole-stage codegen in another, which fails at execution). Stages inside stay as they are.
   */
  private[exchange] def asPlannedBeforeStage(plan: SparkPlan): SparkPlan = plan.transformUp {
    case w: WholeStageCodegenExec => w.child
    case i: InputAdapter => i.child
  }
}
