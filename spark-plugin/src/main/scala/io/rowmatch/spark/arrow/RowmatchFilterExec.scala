package io.rowmatch.spark.arrow

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{And, Attribute, AttributeSet, Expression, IsNotNull, PredicateHelper, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.{FilterExec, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.types.{StructField, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch

import io.rowmatch.spark.expression.ColumnarExpressions
import io.rowmatch.spark.metrics.OperatorTime

/**
 * Spark's Filter on Arrow batches, its condition evaluated by the columnar expression kernels, so a scan or a
 * Rowmatch operator feeding a Rowmatch shuffle, join or aggregate is not turned into rows to be filtered. The
 * conjuncts run in the order of Spark's generated filter (each one's isnotnull checks first), each only where
 * the earlier ones held, so an ANSI error is raised exactly where Spark raises it. Batches whose rows all pass go
 * through untouched. The output marks the isnotnull-filtered columns non-nullable, exactly as FilterExec does.
 */
case class RowmatchFilterExec(condition: Expression, child: SparkPlan, settings: ArrowSettings)
  extends UnaryExecNode with ArrowBatchProducer with ArrowBatchConsumer {

  override def nodeName: String = "RowmatchFilter"

  // Spark's Filter output (attributes the condition proves not null become non-nullable); asked for often while
  // planning, so made once.
  @transient override lazy val output: Seq[Attribute] = FilterExec(condition, child).output

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  override def supportsColumnar: Boolean = true

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "filterTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "time to filter"))

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar; Spark should have added ColumnarToRowExec")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val steps = RowmatchFilterExec.steps(condition, child.output)
    val input = child.output
    val s = settings
    val rows = longMetric("numOutputRows")
    val filterTime = longMetric("filterTime")
    child match {
      case t: RowmatchToArrowExec if RowmatchFilterExec.fusesWith(t) =>
        // Over a vectorized scan: filter Spark's batches and copy only the kept rows into Arrow (ColumnarFilter).
        // The transition's own metrics count the rows and batches that went into Arrow here.
        val schema = StructType(t.child.output.map(a => StructField(a.name, a.dataType, a.nullable)))
        val copiedRows = t.longMetric("numOutputRows")
        val copiedBatches = t.longMetric("numOutputBatches")
        t.child.executeColumnar().mapPartitions { batches =>
          val conjuncts = ColumnarExpressions.compile(steps, input)
          val time = new OperatorTime
          val filtered = ColumnarFilter.runOverSpark(time.input(batches.asJava), conjuncts, schema, s,
            TaskContext.get())
          time.own(filtered, filterTime).asScala.map { b =>
            rows += b.numRows()
            copiedRows += b.numRows()
            copiedBatches += 1
            b
          }
        }
      case _ =>
        child.executeColumnar().mapPartitions { batches =>
          val conjuncts = ColumnarExpressions.compile(steps, input)
          val time = new OperatorTime
          val filtered = ColumnarFilter.run(time.input(batches.asJava), conjuncts, s, TaskContext.get())
          time.own(filtered, filterTime).asScala.map { b =>
            rows += b.numRows()
            b
          }
        }
    }
  }

  override def simpleString(maxFields: Int): String = s"$nodeName $condition"

  override protected def withNewChildInternal(newChild: SparkPlan): RowmatchFilterExec = copy(child = newChild)
}

object RowmatchFilterExec extends PredicateHelper {
  /**
   * The conjuncts in the order Spark's generated filter evaluates them (GeneratePredicateHelper): each
   * non-isnotnull conjunct preceded by the isnotnull checks of the columns it reads, then the remaining checks.
   */
  def steps(condition: Expression, input: Seq[Attribute]): Seq[Expression] = {
    val inputSet = AttributeSet(input)
    val (notNullPreds, otherPreds) = splitConjunctivePredicates(condition).partition {
      case IsNotNull(a) => isNullIntolerant(a) && a.references.subsetOf(inputSet)
      case _ => false
    }
    val generated = Array.fill(notNullPreds.length)(false)
    val ordered = otherPreds.flatMap { c =>
      val checks = c.references.toSeq.flatMap { r =>
        val idx = notNullPreds.indexWhere(n => n.asInstanceOf[IsNotNull].child.semanticEquals(r))
        if (idx != -1 && !generated(idx)) {
          generated(idx) = true
          Some(notNullPreds(idx))
        } else None
      }
      checks :+ c
    }
    ordered ++ notNullPreds.zipWithIndex.collect { case (n, i) if !generated(i) => n }
  }

  /**
   * Whether the filter runs fused with the RowmatchToArrow below it: a vectorized scan's batches (columnar, not
   * Arrow) and every column of a type the kernels read from Spark's vectors.
   */
  def fusesWith(t: RowmatchToArrowExec): Boolean =
    t.child.supportsColumnar && !t.child.isInstanceOf[ArrowBatchProducer] &&
      ColumnarExpressions.readsSparkColumns(t.child.output)

  /** Why the condition is not evaluated columnar over this input, or None. */
  def unsupported(condition: Expression, input: Seq[Attribute]): Option[String] =
    Option(ColumnarExpressions.unsupported(steps(condition, input), input))

  /** The columns of a condition made only of `isnotnull(column)` conjuncts, or None for any other condition. */
  def notNullOnly(condition: Expression, input: Seq[Attribute]): Option[Seq[Attribute]] = {
    val ids = input.map(_.exprId).toSet
    def conjuncts(e: Expression): Option[Seq[Attribute]] = e match {
      case And(l, r) => for (a <- conjuncts(l); b <- conjuncts(r)) yield a ++ b
      case IsNotNull(a: Attribute) if ids.contains(a.exprId) => Some(Seq(a))
      case _ => None
    }
    conjuncts(condition)
  }
}
