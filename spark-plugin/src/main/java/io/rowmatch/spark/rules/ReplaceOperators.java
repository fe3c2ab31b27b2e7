package io.rowmatch.spark.rules;

import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.BroadcastExchangeExec;
import org.apache.spark.sql.execution.exchange.Exchange;
import org.apache.spark.sql.execution.exchange.RowmatchBroadcastExchangeExec;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;
import org.apache.spark.sql.execution.joins.HashedRelationBroadcastMode;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.aggregate.AggregatePlanner;
import io.rowmatch.spark.arrow.ArrowBatchConsumer;
import io.rowmatch.spark.arrow.ArrowSettings;
import io.rowmatch.spark.arrow.RowmatchFilterExec;
import io.rowmatch.spark.arrow.RowmatchProjectExec;
import io.rowmatch.spark.config.RowmatchConf;
import io.rowmatch.spark.join.JoinPlanner;
import io.rowmatch.spark.join.RowmatchHashJoinExec;
import io.rowmatch.spark.shuffle.ShufflePlanner;

/**
 * Replaces supported Spark operators by Rowmatch ones and tags the others with the reason they stay.
 * Runs as the ColumnarRule's pre-transition rule and as an AQE query-stage preparation rule; both see the
 * same decisions (already replaced nodes are left alone). A shuffle feeding a Rowmatch operator becomes an
 * Arrow shuffle (ShufflePlanner).
 *
 * <p>Top-down, carrying whether some ancestor relies on this subtree's output ordering: a sort aggregate
 * outputs rows sorted by its keys and a parent may have skipped its own sort because of it, so a sort
 * aggregate is only replaced (by an unordered hash aggregate) when no ancestor needs that order.
 */
public final class ReplaceOperators extends Rule<SparkPlan> {
  @Override
  public SparkPlan apply(SparkPlan plan) {
    RowmatchConf conf = RowmatchConf.current();
    if (!conf.enabled()) {
      return plan;
    }
    return rewrite(plan, false, conf);
  }

  @Override
  public String ruleName() {
    return "RowmatchReplaceOperators";
  }

  private SparkPlan rewrite(SparkPlan plan, boolean orderNeeded, RowmatchConf conf) {
    SparkPlan node = replaceNode(plan, orderNeeded, conf);
    List<SparkPlan> children = CollectionConverters.asJava(node.children());
    if (children.isEmpty()) {
      return node;
    }
    List<SparkPlan> newChildren = new ArrayList<>(children.size());
    boolean changed = false;
    for (int i = 0; i < children.size(); i++) {
      SparkPlan original = children.get(i);
      SparkPlan child = consumesArrow(node, i) ? arrowInput(original, conf) : broadcastInput(node, original, conf);
      boolean childOrderNeeded = !node.requiredChildOrdering().apply(i).isEmpty()
          || (orderNeeded && !(node instanceof Exchange) && !(node instanceof SortExec));
      SparkPlan rewritten = rewrite(child, childOrderNeeded, conf);
      changed |= rewritten != original;
      newChildren.add(rewritten);
    }
    return changed ? node.withNewChildren(CollectionConverters.asScala(newChildren).toSeq()) : node;
  }

  /** Whether child i of this node is read as Arrow batches (a Rowmatch join, aggregate or shuffle input). */
  private static boolean consumesArrow(SparkPlan node, int i) {
    return node instanceof ArrowBatchConsumer c && c.consumesArrow(i);
  }

  /**
   * A child read as Arrow: its shuffle moves Arrow batches (ShufflePlanner), a Project that only picks or
   * renames columns and a Filter of only isnotnull(column) conjuncts (Spark's inferred join-key filters) run
   * on Arrow, so a scan below is not turned into rows just to drop null keys and rename columns.
   */
  private static SparkPlan arrowInput(SparkPlan child, RowmatchConf conf) {
    if (child instanceof ShuffleExchangeExec shuffle) {
      return ShufflePlanner.replace(shuffle, conf);
    }
    if (isNotNullFilter(child) && child instanceof FilterExec filter) {
      RowmatchFilterExec replaced = new RowmatchFilterExec(filter.condition(), filter.child(), ArrowSettings.of(conf));
      replaced.copyTagsFrom(filter);
      return replaced;
    }
    // Only over Arrow or columnar input: over rows the conversion would just move below the pruning.
    if (child instanceof ProjectExec project && RowmatchProjectExec.selectsOnly(project.projectList())
        && (project.child().supportsColumnar() || isNotNullFilter(project.child()))) {
      RowmatchProjectExec replaced = new RowmatchProjectExec(project.projectList(), project.child());
      replaced.copyTagsFrom(project);
      return replaced;
    }
    return child;
  }

  /**
   * The build side of a broadcast join: a Rowmatch join's becomes a Rowmatch broadcast (Arrow batches, no
   * hash relation; JoinPlanner says which qualify); a vanilla join's must be Spark's, so a Rowmatch broadcast
   * that a re-planning left under a vanilla join is given back as Spark's exchange over the same rows.
   */
  private static SparkPlan broadcastInput(SparkPlan node, SparkPlan child, RowmatchConf conf) {
    if (node instanceof RowmatchHashJoinExec join && join.broadcast() && child instanceof BroadcastExchangeExec e) {
      String why = JoinPlanner.arrowBroadcastReason(join, e, conf);
      if (why == null) {
        RowmatchBroadcastExchangeExec replaced =
            new RowmatchBroadcastExchangeExec((HashedRelationBroadcastMode) e.mode(), e.child());
        replaced.copyTagsFrom(e);
        return replaced;
      }
      FallbackReasons.record(e, why, conf);
      return child;
    }
    if (!(node instanceof RowmatchHashJoinExec) && RowmatchBroadcastExchangeExec.isArrowBroadcast(child)) {
      return RowmatchBroadcastExchangeExec.vanillaBuild(child);
    }
    return child;
  }

  private static boolean isNotNullFilter(SparkPlan plan) {
    return plan instanceof FilterExec f && RowmatchFilterExec.notNullOnly(f.condition(), f.child().output()).isDefined();
  }

  private SparkPlan replaceNode(SparkPlan plan, boolean orderNeeded, RowmatchConf conf) {
    SparkPlan join = JoinPlanner.replace(plan, orderNeeded, conf);
    if (join != null) {
      return join;
    }
    SparkPlan aggregate = AggregatePlanner.replace(plan, orderNeeded, conf);
    return aggregate != null ? aggregate : plan;
  }
}
