package io.rowmatch.spark.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ExpandExec;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.RowmatchUnionExec;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.UnionExec;
import org.apache.spark.sql.execution.exchange.BroadcastExchangeExec;
import org.apache.spark.sql.execution.exchange.Exchange;
import org.apache.spark.sql.execution.exchange.RowmatchBroadcastExchangeExec;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;
import org.apache.spark.sql.execution.joins.HashedRelationBroadcastMode;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.aggregate.AggregatePlanner;
import io.rowmatch.spark.arrow.ArrowBatchConsumer;
import io.rowmatch.spark.arrow.ArrowBatchProducer;
import io.rowmatch.spark.arrow.ArrowSettings;
import io.rowmatch.spark.arrow.RowmatchExpandExec;
import io.rowmatch.spark.arrow.RowmatchFilterExec;
import io.rowmatch.spark.arrow.RowmatchProjectExec;
import io.rowmatch.spark.config.RowmatchConf;
import io.rowmatch.spark.join.JoinPlanner;
import io.rowmatch.spark.join.RowmatchHashJoinExec;
import io.rowmatch.spark.shuffle.ShufflePlanner;
import io.rowmatch.spark.window.RowmatchWindowSortExec;
import io.rowmatch.spark.window.WindowPlanner;

/**
 * Replaces supported Spark operators by Rowmatch ones and tags the others with the reason they stay.
 * Runs as the ColumnarRule's pre-transition rule and as an AQE query-stage preparation rule; both see the
 * same decisions (already replaced nodes are left alone). A shuffle feeding a Rowmatch operator becomes an
 * Arrow shuffle (ShufflePlanner).
 *
 * <p>Top-down, carrying whether some ancestor relies on this subtree's output ordering: a sort aggregate
 * outputs rows sorted by its keys and a parent may have skipped its own sort because of it, so a sort
 * aggregate is only replaced (by an unordered hash aggregate) when no ancestor needs that order.
 *
 * <p>Then {@link PlacementPolicy} judges the result: where a group of replacements adds more row/Arrow
 * transitions than its work is worth, its vanilla nodes are tagged and the plan is rewritten again from the
 * original, keeping them.
 */
public final class ReplaceOperators extends Rule<SparkPlan> {
  private static final AtomicLong PASSES = new AtomicLong();
  /**
   * Whether this instance runs last on a stage's plan (as the ColumnarRule's pre-transition rule, after AQE's
   * stage optimizations), where replacements that leave a parent's ordering requirement unmet may run: AQE
   * re-validates a stage after coalescing its shuffle reads and keeps the uncoalesced plan if a requirement is unmet.
   */
  private final boolean lastOnStage;

  public ReplaceOperators(boolean lastOnStage) {
    this.lastOnStage = lastOnStage;
  }

  @Override
  public SparkPlan apply(SparkPlan plan) {
    RowmatchConf conf = RowmatchConf.current();
    if (!conf.enabled()) {
      return plan;
    }
    long pass = PASSES.incrementAndGet();
    SparkPlan replaced = rewrite(plan, false, conf, pass);
    if (conf.placementEnabled() && PlacementPolicy.declineUnpaid(replaced, pass, conf)) {
      replaced = rewrite(plan, false, conf, pass);
    }
    return PlacementPolicy.strip(replaced);
  }

  @Override
  public String ruleName() {
    return "RowmatchReplaceOperators";
  }

  private SparkPlan rewrite(SparkPlan plan, boolean orderNeeded, RowmatchConf conf, long pass) {
    SparkPlan node = PlacementPolicy.keptVanilla(plan) ? plan : replaceNode(plan, orderNeeded, conf);
    if (node != plan) {
      PlacementPolicy.markReplaced(node, plan, pass);
    }
    List<SparkPlan> children = CollectionConverters.asJava(node.children());
    if (children.isEmpty()) {
      return node;
    }
    List<SparkPlan> newChildren = new ArrayList<>(children.size());
    boolean changed = false;
    for (int i = 0; i < children.size(); i++) {
      SparkPlan original = children.get(i);
      SparkPlan child = consumesArrow(node, i) ? arrowInput(original, conf, pass)
          : broadcastInput(node, original, conf);
      if (child != original) {
        PlacementPolicy.markReplaced(child, original, pass);
      }
      // A sort (Spark's, or the group-wise one under a window) makes the order its parent reads: none is needed below.
      boolean reorders = node instanceof Exchange || node instanceof SortExec || node instanceof RowmatchWindowSortExec;
      boolean childOrderNeeded = !node.requiredChildOrdering().apply(i).isEmpty() || (orderNeeded && !reorders);
      SparkPlan rewritten = rewrite(child, childOrderNeeded, conf, pass);
      changed |= rewritten != original;
      newChildren.add(rewritten);
    }
    SparkPlan result = changed ? node.withNewChildren(CollectionConverters.asScala(newChildren).toSeq()) : node;
    SparkPlan columnar = overArrow(result, conf);
    if (columnar != result) {
      PlacementPolicy.markReplaced(columnar, plan, pass);
    }
    return columnar;
  }

  /**
   * Bottom-up: a Filter, Project or Expand whose child (already rewritten) produces Arrow batches, a Rowmatch
   * operator or an Arrow shuffle's stage, runs on those batches whatever its parent, so no rows are made below it (a
   * computing Project between two joins, a Filter over a join, a ROLLUP's Expand over a join under its aggregate).
   */
  private static SparkPlan overArrow(SparkPlan plan, RowmatchConf conf) {
    if (PlacementPolicy.keptVanilla(plan)) {
      return plan;
    }
    if (plan instanceof FilterExec filter && InsertArrowTransitions.producesArrow(filter.child())) {
      return columnarFilter(filter, conf);
    }
    if (plan instanceof ProjectExec project && InsertArrowTransitions.producesArrow(project.child())) {
      return columnarProject(project, conf);
    }
    if (plan instanceof ExpandExec expand && InsertArrowTransitions.producesArrow(expand.child())) {
      return columnarExpand(expand, conf);
    }
    return plan;
  }

  /** Whether child i of this node is read as Arrow batches (a Rowmatch join, aggregate or shuffle input). */
  private static boolean consumesArrow(SparkPlan node, int i) {
    return node instanceof ArrowBatchConsumer c && c.consumesArrow(i);
  }

  /**
   * A child read as Arrow: its shuffle moves Arrow batches (ShufflePlanner); a Filter or Project whose every
   * expression the columnar kernels evaluate runs on Arrow (a pure isnotnull filter, Spark's inferred join-key
   * filter, and a pure column pick whatever their input; a computing one over columnar input only: over rows
   * the conversion would just move below it). Otherwise it stays Spark's, with the reason.
   */
  private static SparkPlan arrowInput(SparkPlan child, RowmatchConf conf, long pass) {
    if (PlacementPolicy.keptVanilla(child)) {
      return child;
    }
    if (child instanceof UnionExec union && !(child instanceof RowmatchUnionExec)) {
      return unionInput(union, conf, pass);
    }
    if (child instanceof ShuffleExchangeExec shuffle) {
      return ShufflePlanner.replace(shuffle, conf);
    }
    if (child instanceof FilterExec filter && (isNotNullFilter(filter) || runsColumnar(filter.child()))) {
      return columnarFilter(filter, conf);
    }
    if (child instanceof ProjectExec project) {
      boolean picks = RowmatchProjectExec.selectsOnly(project.projectList());
      if (runsColumnar(project.child()) || (picks && isNotNullFilter(project.child()))) {
        return columnarProject(project, conf);
      }
      if (project.child() instanceof FilterExec f && runsColumnar(f.child())) {
        RowmatchFilterExec.unsupported(f.condition(), f.child().output())
            .foreach(why -> { FallbackReasons.record(f, why, conf); return null; });
      }
    }
    if (child instanceof ExpandExec expand && runsColumnar(expand.child())) {
      return columnarExpand(expand, conf);
    }
    return child;
  }

  /**
   * A union read as Arrow (TPC-DS q5's sales UNION ALL returns under a join): each input is read as Arrow too, so a
   * branch's Filter or Project over a scan runs on its batches and the union runs columnar (RowmatchUnion), instead
   * of every branch making rows for one rows->Arrow conversion above the union. Only when every input then hands
   * up batches: a union with one row-based input would convert the others back to rows.
   */
  private static SparkPlan unionInput(UnionExec union, RowmatchConf conf, long pass) {
    List<SparkPlan> inputs = CollectionConverters.asJava(union.children());
    List<SparkPlan> columnar = new ArrayList<>(inputs.size());
    boolean changed = false;
    for (SparkPlan input : inputs) {
      SparkPlan c = arrowInput(input, conf, pass);
      if (!(runsColumnar(c) || c instanceof ArrowBatchProducer)) {
        return union;
      }
      if (c != input) {
        PlacementPolicy.markReplaced(c, input, pass);
        changed = true;
      }
      columnar.add(c);
    }
    if (!changed) {
      return union;
    }
    SparkPlan replaced = union.withNewChildren(CollectionConverters.asScala(columnar).toSeq());
    replaced.copyTagsFrom(union);
    return replaced;
  }

  /**
   * The build side of a broadcast join: a Rowmatch join's becomes a Rowmatch broadcast (Arrow batches, no
   * hash relation; JoinPlanner says which qualify); a vanilla join's must be Spark's, so a Rowmatch broadcast
   * that a re-planning left under a vanilla join is given back as Spark's exchange over the same rows.
   */
  private static SparkPlan broadcastInput(SparkPlan node, SparkPlan child, RowmatchConf conf) {
    if (node instanceof RowmatchHashJoinExec join && join.broadcast() && child instanceof BroadcastExchangeExec e
        && !PlacementPolicy.keptVanilla(e)) {
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

  /**
   * Whether a plan will hand Arrow batches up without making rows: a columnar scan, an Arrow producer, a shuffle
   * (ShufflePlanner decides whether it moves Arrow), or a supported Filter or Project over such a plan (a chain
   * such as the aggregate's computed inputs over a pick over a filter over a scan).
   */
  private static boolean runsColumnar(SparkPlan plan) {
    if (columnar(plan)) {
      return true;
    }
    if (plan instanceof FilterExec f) {
      return (isNotNullFilter(f) || runsColumnar(f.child()))
          && RowmatchFilterExec.unsupported(f.condition(), f.child().output()).isEmpty();
    }
    if (plan instanceof ProjectExec p) {
      return runsColumnar(p.child()) && RowmatchProjectExec.unsupported(p.projectList(), p.child().output()).isEmpty();
    }
    if (plan instanceof ExpandExec e) {
      return runsColumnar(e.child()) && RowmatchExpandExec.unsupported(e).isEmpty();
    }
    return false;
  }

  /** Whether a plan's output is columnar: a scan, an Arrow producer (a Rowmatch operator), an Arrow shuffle. */
  private static boolean columnar(SparkPlan plan) {
    return plan.supportsColumnar() || plan instanceof ShuffleExchangeExec;
  }

  private static SparkPlan columnarFilter(FilterExec filter, RowmatchConf conf) {
    Option<String> why = RowmatchFilterExec.unsupported(filter.condition(), filter.child().output());
    if (why.isDefined()) {
      FallbackReasons.record(filter, why.get(), conf);
      return filter;
    }
    RowmatchFilterExec replaced = new RowmatchFilterExec(filter.condition(), filter.child(), ArrowSettings.of(conf));
    replaced.copyTagsFrom(filter);
    return replaced;
  }

  private static SparkPlan columnarProject(ProjectExec project, RowmatchConf conf) {
    Option<String> why = RowmatchProjectExec.unsupported(project.projectList(), project.child().output());
    if (why.isDefined()) {
      FallbackReasons.record(project, why.get(), conf);
      return project;
    }
    RowmatchProjectExec replaced = new RowmatchProjectExec(project.projectList(), project.child(),
        ArrowSettings.of(conf));
    replaced.copyTagsFrom(project);
    return replaced;
  }

  private static SparkPlan columnarExpand(ExpandExec expand, RowmatchConf conf) {
    Option<String> why = RowmatchExpandExec.unsupported(expand);
    if (why.isDefined()) {
      FallbackReasons.record(expand, why.get(), conf);
      return expand;
    }
    return RowmatchExpandExec.of(expand, ArrowSettings.of(conf));
  }

  private static boolean isNotNullFilter(SparkPlan plan) {
    return plan instanceof FilterExec f && RowmatchFilterExec.notNullOnly(f.condition(), f.child().output()).isDefined();
  }

  private SparkPlan replaceNode(SparkPlan plan, boolean orderNeeded, RowmatchConf conf) {
    String placement = PlacementPolicy.operatorReason(plan, conf);
    if (placement != null) {
      FallbackReasons.record(plan, placement, conf);
      return plan;
    }
    SparkPlan join = JoinPlanner.replace(plan, orderNeeded, conf);
    if (join instanceof RowmatchHashJoinExec j) {
      String builtForVanilla = PlacementPolicy.builtForVanillaReason(j, conf);
      if (builtForVanilla != null) {
        FallbackReasons.record(plan, builtForVanilla, conf);
        return plan;
      }
    }
    if (join != null) {
      return join;
    }
    SparkPlan aggregate = AggregatePlanner.replace(plan, orderNeeded, conf);
    if (aggregate != null) {
      return aggregate;
    }
    SparkPlan window = WindowPlanner.replace(plan, orderNeeded, conf, lastOnStage);
    return window != null ? window : plan;
  }
}
