package io.rowmatch.spark.aggregate

import scala.jdk.CollectionConverters._

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
}
