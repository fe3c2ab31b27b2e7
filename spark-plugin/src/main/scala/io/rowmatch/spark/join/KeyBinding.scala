package io.rowmatch.spark.join

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression}

/**
 * Binds a computed join key to its side's columns (BoundReference by ordinal), so executors evaluate it on
 * that side's Arrow rows. Scala because BindReferences takes Catalyst's implicit AttributeSeq, which Java
 * cannot name.
 */
object KeyBinding {
  def bind(e: Expression, input: java.util.List[Attribute]): Expression =
    BindReferences.bindReference(e, input.asScala.toSeq)
}
