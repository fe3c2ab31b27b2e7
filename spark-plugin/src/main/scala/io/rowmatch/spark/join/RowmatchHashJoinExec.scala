package io.rowmatch.spark.join

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression, SortOrder}
import org.apache.spark.sql.catalyst.optimizer.BuildSide
import org.apache.spark.sql.catalyst.plans.{Inner, JoinType}
import org.apache.spark.sql.catalyst.plans.physical.{Distribution, Partitioning, PartitioningCollection, UnknownPartitioning}
import org.apache.spark.sql.execution.joins.{BroadcastHashJoinExec, ShuffledHashJoinExec}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.{BinaryExecNode, SparkPlan}
import org.apache.spark.sql.vectorized.ColumnarBatch

import io.rowmatch.spark.arrow.{ArrowBatchConsumer, ArrowBatchProducer}
import io.rowmatch.spark.memory.{SpillMetrics, SpillMetricsOf}
import io.rowmatch.spark.metrics.OperatorTime

/**
 * Columnar hash equi-join on Arrow batches, replacing Spark's BroadcastHashJoinExec, ShuffledHashJoinExec and
 * SortMergeJoinExec (run as a shuffled hash join).
 *
 * A thin Scala shell, because Spark plan nodes are Scala case classes at heart (tree rewrites call `copy`,
 * `withNewChildrenInternal`, `productIterator`). Output, partitioning and required child distribution are
 * exactly those of the Spark join it stands for (`vanilla`, rebuilt over the current children, so AQE's
 * coalesced or re-planned children are reflected). It promises no output ordering. The planning is Java
 * (JoinPlanner builds `spec`); HashJoinRunner executes it per partition. For a broadcast join the
 * build child stays Spark's broadcast exchange (a row-based HashedRelation); the plugin's transition rule
 * leaves that child unconverted (consumesArrow).
 */
case class RowmatchHashJoinExec(
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    joinType: JoinType,
    buildSide: BuildSide,
    condition: Option[Expression],
    left: SparkPlan,
    right: SparkPlan,
    broadcast: Boolean,
    isSkewJoin: Boolean,
    spec: JoinSpec,
    replaced: String)
  extends BinaryExecNode with ArrowBatchProducer with ArrowBatchConsumer {

  @transient private lazy val vanilla: SparkPlan =
    if (broadcast) {
      BroadcastHashJoinExec(leftKeys, rightKeys, joinType, buildSide, condition, left, right, spec.nullAwareAnti)
    } else {
      ShuffledHashJoinExec(leftKeys, rightKeys, joinType, buildSide, condition, left, right, isSkewJoin)
    }

  override def nodeName: String = "RowmatchHashJoin"

  /**
   * Why the condition is evaluated row by row through Spark's predicate (None: on the columnar kernels over each
   * chunk of matched pairs, or no condition). The executors decide the same way (HashJoinRunner).
   */
  @transient lazy val conditionRowReason: Option[String] = condition.flatMap { c =>
    Option(io.rowmatch.spark.expression.ColumnarExpressions.unsupported(Seq(c), left.output ++ right.output))
  }

  /** Spark's output, or the columns of it the plan above reads (`spec.outputColumns`, set by [[keeping]]). */
  override def output: Seq[Attribute] =
    if (spec.outputColumns == null) vanilla.output else spec.outputColumns.toSeq.map(vanilla.output)

  /** Spark's partitioning, less the parts over columns this join no longer outputs. */
  override def outputPartitioning: Partitioning =
    if (spec.outputColumns == null) vanilla.outputPartitioning
    else RowmatchHashJoinExec.within(vanilla.outputPartitioning, AttributeSet(output))

  /**
   * This join gathering only the columns of its output in `needed` (at least one, so a batch keeps its rows'
   * count in a vector too): a join's key and condition columns are usually dropped just above it.
   */
  def keeping(needed: AttributeSet): RowmatchHashJoinExec = {
    val all = vanilla.output
    var kept: Seq[Int] = all.indices.filter(i => needed.contains(all(i)))
    if (kept.isEmpty) kept = Seq(0)
    val columns = if (kept.size == all.size) null else kept.toArray
    if (java.util.Arrays.equals(columns, spec.outputColumns)) this
    else {
      val pruned = copy(spec = spec.keeping(columns))
      pruned.copyTagsFrom(this)
      pruned
    }
  }

  override def requiredChildDistribution: Seq[Distribution] = vanilla.requiredChildDistribution

  override def outputOrdering: Seq[SortOrder] = Nil

  override def supportsColumnar: Boolean = true

  override def ownsOutputBatches(): Boolean = true

  /** The broadcast build child is read through Spark's executeBroadcast, never as Arrow batches. */
  override def consumesArrow(child: Int): Boolean = !(broadcast && child == (if (spec.buildLeft) 0 else 1))

  /** Spark's join metrics under Spark's names (build time includes reading the build side, as Spark's does). */
  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numOutputBatches" -> SQLMetrics.createMetric(sparkContext, "number of output batches"),
    "buildTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "time to build hash map"),
    "probeTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "time to probe"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size"),
    "numSpills" -> SQLMetrics.createMetric(sparkContext, "number of spills"),
    "peakMemory" -> SQLMetrics.createSizeMetric(sparkContext, "peak memory")) ++
    (if (broadcast) Map.empty
     else Map("buildDataSize" -> SQLMetrics.createSizeMetric(sparkContext, "data size of build side"),
       "numBuildChunks" -> SQLMetrics.createMetric(sparkContext, "number of build chunks")))

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar; Spark should have added ColumnarToRowExec")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val s = spec
    val cond = condition.orNull
    val condInput = (left.output ++ right.output).asJava
    val rows = longMetric("numOutputRows")
    val batches = longMetric("numOutputBatches")
    val buildTime = longMetric("buildTime")
    val probeTime = longMetric("probeTime")
    // The probe's own time: the runner's time less the streamed side's (the build already happened).
    def probe(time: OperatorTime, it: java.util.Iterator[ColumnarBatch]): Iterator[ColumnarBatch] = time.own(it, probeTime).asScala.map { b =>
      rows += b.numRows()
      batches += 1
      b
    }
    if (broadcast) {
      val (buildPlan, streamedPlan) = if (s.buildLeft) (left, right) else (right, left)
      val relation = buildPlan.executeBroadcast[Object]()
      streamedPlan.executeColumnar().mapPartitions { streamed =>
        val time = new OperatorTime
        val in = time.input(streamed.asJava)
        // A broadcast's table is built once per executor: the task that builds it counts the time.
        probe(time, HashJoinRunner.broadcast(s, in, relation, cond, condInput, TaskContext.get(),
          (n: Long) => buildTime += n))
      }
    } else {
      val spills = SpillMetricsOf(longMetric("spillSize"), longMetric("numSpills"), longMetric("peakMemory"))
      val buildBytes = longMetric("buildDataSize")
      val chunkCount = longMetric("numBuildChunks")
      left.executeColumnar().zipPartitions(right.executeColumnar()) { (l, r) =>
        // The build side's size: the largest table the task built (its only one unless the join spilled).
        val spillsAndBuild = new SpillMetrics {
          override def spilled(bytes: Long): Unit = spills.spilled(bytes)
          override def peakMemory(bytes: Long): Unit = { spills.peakMemory(bytes); buildBytes += bytes }
          override def buildChunks(chunks: Long): Unit = chunkCount += chunks
        }
        val time = new OperatorTime
        val (leftIn, rightIn) =
          if (s.buildLeft) (l.asJava, time.input(r.asJava)) else (time.input(l.asJava), r.asJava)
        val joined = OperatorTime.time(() => HashJoinRunner.shuffled(s, leftIn, rightIn, cond, condInput,
          TaskContext.get(), spillsAndBuild), buildTime)
        probe(time, joined)
      }
    }
  }

  override def simpleString(maxFields: Int): String =
    s"$nodeName($joinType${if (spec.nullAwareAnti) " (null-aware)" else ""}, " +
      s"${if (spec.buildLeft) "BuildLeft" else "BuildRight"}, " +
      s"leftKeys=${leftKeys.mkString("[", ", ", "]")}, rightKeys=${rightKeys.mkString("[", ", ", "]")}" +
      condition.map { c =>
        s", condition=$c" + (if (conditionRowReason.isEmpty) " (columnar)" else " (rows)")
      }.getOrElse("") +
      // Each probe row meets only its key's build rows in this comparison's band (HashJoinRunner, JoinBand).
      (if (joinType != Inner || broadcast) ""
      else Option(JoinPlanner.band(condition.orNull, left.output, right.output)).map(b => s", band=${b.sql}")
        .getOrElse("")) +
      (if (spec.outputColumns == null) "" else s", output=${output.map(_.name).mkString("[", ", ", "]")}") +
      s", replaces=$replaced)"

  override def verboseStringWithOperatorId(): String = simpleString(Int.MaxValue)

  /** Spark's canonical form of the Catalyst fields, and the spec in its canonical form (it is not an Expression). */
  override protected def doCanonicalize(): SparkPlan =
    super.doCanonicalize().asInstanceOf[RowmatchHashJoinExec].copy(spec = spec.canonicalized())

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan): RowmatchHashJoinExec =
    copy(left = newLeft, right = newRight)
}

object RowmatchHashJoinExec {
  /** A partitioning restricted to the parts whose expressions read only these attributes (else unknown). */
  def within(p: Partitioning, attributes: AttributeSet): Partitioning = p match {
    case PartitioningCollection(ps) =>
      ps.map(within(_, attributes)).filterNot(_.isInstanceOf[UnknownPartitioning]) match {
        case Seq() => UnknownPartitioning(p.numPartitions)
        case Seq(one) => one
        case several => PartitioningCollection(several)
      }
    case e: Expression if e.references.subsetOf(attributes) => p
    case e: Expression => UnknownPartitioning(p.numPartitions)
    case other => other
  }
}
