package io.rowmatch.spark.aggregate

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction}
import org.apache.spark.sql.catalyst.expressions.{Alias, Expression, NamedExpression}
import org.apache.spark.sql.execution.{ProjectExec, SparkPlan}

/**
 * Aggregate inputs that are expressions (sum(price * (1 - discount))) are computed below the Rowmatch
 * aggregate by Spark's own ProjectExec, appended after the child's columns, so the kernels read plain
 * columns and the values are exactly the ones Spark would have computed. Scala because Alias and
 * ProjectExec are case classes with curried constructors.
 */
object PreProjection {
  def alias(e: Expression, name: String): NamedExpression = Alias(e, name)()

  /** The child's columns in their order (ordinals are unchanged), then the computed ones. */
  def project(child: SparkPlan, computed: java.util.List[NamedExpression]): SparkPlan =
    ProjectExec(child.output ++ computed.asScala, child)

  /**
   * The aggregate's functions reading the computed columns instead of the expressions they were computed
   * from, as the aggregate really does. Each expression then appears once in the plan (in the projection),
   * as it does in vanilla Spark's (in the aggregate): a scalar subquery inside is planned and reused
   * exactly as Spark's, and the two nodes do not share one SubqueryExec instance, which Spark's reuse rules
   * would count as two subqueries. Inputs match as AggregatePlanner matched them (semanticEquals).
   */
  def readComputed(aggregates: Seq[AggregateExpression],
      computed: java.util.List[NamedExpression]): Seq[AggregateExpression] = {
    val columns = computed.asScala.toSeq.collect { case a: Alias => a.child -> a.toAttribute }
    if (columns.isEmpty) aggregates
    else aggregates.map { e =>
      val f = e.aggregateFunction
      val inputs = f.children.map(c => columns.collectFirst { case (x, column) if x.semanticEquals(c) => column }
        .getOrElse(c))
      if (inputs == f.children) e
      else e.copy(aggregateFunction = f.withNewChildren(inputs).asInstanceOf[AggregateFunction])
    }
  }
}
