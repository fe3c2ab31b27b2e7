package io.rowmatch.spark.rules;

import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SparkPlan;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.arrow.RowmatchFilterExec;
import io.rowmatch.spark.arrow.RowmatchProjectExec;
import io.rowmatch.spark.join.RowmatchHashJoinExec;

/**
 * A Rowmatch join gathers every output column for each pair it keeps, but Spark's plan usually drops the join's
 * keys and condition columns in the Project just above it (vanilla's generated code never reads them). Where a
 * Project reads a join's output, through Filters and row transitions, the join outputs only the columns read
 * there ({@link RowmatchHashJoinExec#keeping}). Only under a Project: a Project's output does not depend on its
 * child's, while a join above a join holds ordinals into its child's columns.
 */
final class PruneJoinOutputs {
  private PruneJoinOutputs() {}

  static SparkPlan apply(SparkPlan plan) {
    return prune(plan, null);
  }

  /** {@code needed}: the columns of this node's output read above it; null when all may be. */
  private static SparkPlan prune(SparkPlan plan, AttributeSet needed) {
    SparkPlan node = plan;
    AttributeSet childNeeds = null;
    if (plan instanceof RowmatchHashJoinExec join && needed != null) {
      node = join.keeping(needed);
    } else if (plan instanceof ProjectExec || plan instanceof RowmatchProjectExec) {
      childNeeds = plan.references();
    } else if (needed != null
        && (plan instanceof FilterExec || plan instanceof RowmatchFilterExec || plan instanceof ColumnarToRowExec)) {
      // Their output is their child's: what is read above, and what they read themselves.
      childNeeds = needed.$plus$plus(plan.references());
    }
    List<SparkPlan> children = CollectionConverters.asJava(node.children());
    List<SparkPlan> pruned = new ArrayList<>(children.size());
    boolean changed = false;
    for (SparkPlan child : children) {
      SparkPlan c = prune(child, childNeeds);
      changed |= c != child;
      pruned.add(c);
    }
    return changed ? node.withNewChildren(CollectionConverters.asScala(pruned).toSeq()) : node;
  }
}
