package io.rowmatch.spark.arrow

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, NamedExpression, SortOrder}
import org.apache.spark.sql.execution.{OrderPreservingUnaryExecNode, PartitioningPreservingUnaryExecNode, SparkPlan}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

/**
 * Column pruning between two Rowmatch operators (`Project [a, b]` over a join's output): picks the child's
 * Arrow columns, zero copy, instead of converting the batch to rows, projecting, and converting back.
 * Only plain attribute references, possibly renamed (`k AS k2`): anything computed stays Spark's
 * ProjectExec. The picked columns share the child's vectors, so the batch is valid exactly as long as the
 * child's.
 */
case class RowmatchProjectExec(projectList: Seq[NamedExpression], child: SparkPlan)
  extends PartitioningPreservingUnaryExecNode with OrderPreservingUnaryExecNode with ArrowBatchProducer
  with ArrowBatchConsumer {

  require(projectList.forall(RowmatchProjectExec.selects(_).isDefined),
    "RowmatchProject selects (and renames) attributes only")

  override def nodeName: String = "RowmatchProject"

  override def output: Seq[Attribute] = projectList.map(_.toAttribute)

  override protected def outputExpressions: Seq[NamedExpression] = projectList

  override protected def orderingExpressions: Seq[SortOrder] = child.outputOrdering

  override def supportsColumnar: Boolean = true

  /** New batches over the child's vectors; treated as owned, as a join's or aggregate's are (the rule relies on it). */
  override def ownsOutputBatches(): Boolean = true

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar only")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val ordinals = projectList.map { e =>
      val a = RowmatchProjectExec.selects(e).get
      val i = child.output.indexWhere(_.exprId == a.exprId)
      require(i >= 0, s"$nodeName: ${a.sql} is not an output of ${child.nodeName}")
      i
    }.toArray
    child.executeColumnar().mapPartitions { batches =>
      batches.map { b =>
        val columns = new Array[ColumnVector](ordinals.length)
        var i = 0
        while (i < ordinals.length) {
          columns(i) = b.column(ordinals(i))
          i += 1
        }
        new ColumnarBatch(columns, b.numRows())
      }
    }
  }

  override def simpleString(maxFields: Int): String =
    s"$nodeName ${output.map(_.sql).mkString("[", ", ", "]")}"

  override protected def withNewChildInternal(newChild: SparkPlan): RowmatchProjectExec =
    copy(child = newChild)
}

object RowmatchProjectExec {
  /** The child column an entry of a project list picks: an attribute, or an attribute renamed by an alias. */
  def selects(e: NamedExpression): Option[Attribute] = e match {
    case a: Attribute => Some(a)
    case Alias(a: Attribute, _) => Some(a)
    case _ => None
  }

  def selectsOnly(projectList: Seq[NamedExpression]): Boolean = projectList.forall(selects(_).isDefined)
}
