package io.rowmatch.spark.join

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.expressions.{Expression, PredicateHelper}

/** A condition's conjuncts as Spark's own PredicateHelper splits them (Java cannot mix in the trait). */
object Conjuncts extends PredicateHelper {
  def of(condition: Expression): java.util.List[Expression] = splitConjunctivePredicates(condition).asJava
}
