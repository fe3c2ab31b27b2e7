package io.rowmatch.spark.rules;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionSet;
import org.apache.spark.sql.catalyst.expressions.ExpressionSet$;
import org.apache.spark.sql.catalyst.optimizer.BuildLeft$;
import org.apache.spark.sql.catalyst.plans.ExistenceJoin;
import org.apache.spark.sql.catalyst.plans.Inner$;
import org.apache.spark.sql.catalyst.plans.JoinType;
import org.apache.spark.sql.catalyst.plans.LeftAnti$;
import org.apache.spark.sql.catalyst.plans.LeftSemi$;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.UnionExec;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.BroadcastQueryStageExec;
import org.apache.spark.sql.execution.adaptive.LogicalQueryStage;
import org.apache.spark.sql.execution.adaptive.ShuffleQueryStageExec;
import org.apache.spark.sql.execution.exchange.BroadcastExchangeExec;
import org.apache.spark.sql.execution.exchange.Exchange;
import org.apache.spark.sql.execution.exchange.RowmatchBroadcastExchangeExec;
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec;
import org.apache.spark.sql.execution.joins.SortMergeJoinExec;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.aggregate.RowmatchHashAggregateExec;
import io.rowmatch.spark.arrow.ArrowBatchConsumer;
import io.rowmatch.spark.arrow.ArrowBatchProducer;
import io.rowmatch.spark.arrow.RowmatchToArrowExec;
import io.rowmatch.spark.config.RowmatchConf;
import io.rowmatch.spark.join.JoinPlanner;
import io.rowmatch.spark.join.RowmatchHashJoinExec;
import io.rowmatch.spark.shuffle.RowmatchShuffleExchangeExec;

/**
 * Where a replacement pays. ReplaceOperators replaces every supported operator; this policy then looks at each
 * island (a connected group of Rowmatch operators that pass Arrow batches to each other) and keeps it vanilla
 * when the work it takes over does not outweigh the row/Arrow transitions it adds: rows converted into Arrow
 * where it reads a row-based child, and Arrow converted back to rows where a row-based parent reads it. A
 * columnar scan costs nothing either way (vanilla converts its batches too), and an already materialized Arrow
 * shuffle or broadcast stage counts for the island (vanilla would have to convert it).
 *
 * <p>Work units: 1 per join, aggregation or Arrow shuffle (an aggregate directly over its partial, with no shuffle
 * between, adds none), 2 per join replacing a sort-merge join (its sorts go
 * too), 0 per filter, projection or broadcast, whose per-row work is about that of a transition. An island
 * stays vanilla when work &lt; transitions x {@code spark.rowmatch.placement.minWorkPerTransition}: a lone
 * Filter/Project, join or aggregate between row operators; not a partial + Arrow shuffle + final aggregation.
 *
 * <p>Only islands made wholly in this pass are judged: a Rowmatch operator a previous pass made (AQE plans a
 * query in several passes, the first with the whole plan in view) stays. A node kept vanilla is tagged, so later
 * passes over the same node keep it too.
 */
final class PlacementPolicy {
  /** On a replacement: the vanilla node it stands for and the pass that made it; removed when the pass ends. */
  private static final TreeNodeTag<Origin> ORIGIN = TreeNodeTag.apply("rowmatch.placement.origin");
  /** On a vanilla node this policy kept vanilla. */
  private static final TreeNodeTag<Boolean> KEPT_VANILLA = TreeNodeTag.apply("rowmatch.placement.keptVanilla");

  private PlacementPolicy() {}

  record Origin(long pass, SparkPlan original) implements Serializable {}

  static void markReplaced(SparkPlan replacement, SparkPlan original, long pass) {
    replacement.setTagValue(ORIGIN, new Origin(pass, original));
  }

  /**
   * Why this vanilla operator stays vanilla whatever surrounds it, or null:
   *
   * <ul>
   *   <li>a sort-merge join (inner or outer: its output is the pairs) with a condition besides its keys, unless one
   *       side holds each key once (Spark's distinct keys: an aggregate grouped by them) or
   *       {@code spark.rowmatch.placement.conditionalSortMergeJoin} (TPC-DS q72 ran 0.20x when its pairs per key
   *       were tested on row views; see the setting), or an inner one comparing an int or date column of each side
   *       ({@code JoinBand}: the comparison picks each probe row's pairs);
   *   <li>a broadcast hash join streaming the rows of a join that stays vanilla (through filters, projections and
   *       other such broadcast joins): Spark generates one loop for that join and the broadcast joins above it,
   *       and turning the join's output (its pairs, wide) into Arrow costs about what our broadcast joins save.
   *       TPC-DS q72, nine broadcast joins over its conditional sort-merge join: that stage took 16.5 s executor
   *       CPU with our joins against vanilla's 11.7 s.
   * </ul>
   */
  static String operatorReason(SparkPlan plan, RowmatchConf conf) {
    if (!conf.placementEnabled()) {
      return null;
    }
    if (plan instanceof BroadcastHashJoinExec bhj) {
      SparkPlan below = vanillaJoinStreamed(bhj.streamedPlan(), conf);
      return below == null ? null : "placement: a broadcast join streaming the rows of Spark's " + below.nodeName()
          + " stays in that join's generated code (converting its output to Arrow costs about what a Rowmatch join"
          + " saves; set " + RowmatchConf.PLACEMENT_ENABLED + "=false to replace it anyway)";
    }
    return conditionalSmjReason(plan, conf);
  }

  /**
   * The join that stays vanilla whose rows this streamed input of a broadcast join is (through row-based filters,
   * projections and broadcast joins that stay vanilla for the same reason), or null.
   */
  private static SparkPlan vanillaJoinStreamed(SparkPlan streamed, RowmatchConf conf) {
    SparkPlan p = streamed;
    while (p instanceof FilterExec || p instanceof ProjectExec) {
      p = p.children().head();
    }
    if (p instanceof BroadcastHashJoinExec bhj) {
      return vanillaJoinStreamed(bhj.streamedPlan(), conf);
    }
    return conditionalSmjReason(p, conf) != null ? p : null;
  }

  private static String conditionalSmjReason(SparkPlan plan, RowmatchConf conf) {
    if (conf.placementConditionalSmj() || !conf.joinEnabled()
        || !conf.joinReplaceSortMerge() || !(plan instanceof SortMergeJoinExec smj) || smj.condition().isEmpty()) {
      return null;
    }
    // A semi or anti join only asks whether some pair passes; its hash join still saves both sorts (TPC-H q21).
    JoinType type = smj.joinType();
    if (type == LeftSemi$.MODULE$ || type == LeftAnti$.MODULE$ || type instanceof ExistenceJoin) {
      return null;
    }
    // One side holds each key once (an aggregate grouped by the join keys: TPC-H q20, TPC-DS q1, q30, q81, q92's
    // correlated aggregates): each row of the other side meets at most one row, so there is no pair blow-up.
    if (keysDistinctOnOneSide(smj)) {
      return null;
    }
    // An inner join comparing an int or date column of each side (TPC-DS q72): each probe row meets only the run of
    // its key's build rows the comparison holds for, not every pair.
    if (type == Inner$.MODULE$ && JoinPlanner.hasBand(smj)) {
      return null;
    }
    return "placement: a sort-merge " + type.sql().toLowerCase(java.util.Locale.ROOT) + " join with the condition "
        + smj.condition().get().sql() + " besides its keys tests every pair of rows with equal keys: kept as Spark's"
        + " sort-merge join (set " + RowmatchConf.PLACEMENT_CONDITIONAL_SMJ + "=true to replace it)";
  }

  /** Whether Spark's distinct-keys propagation says the left or the right input holds each join key at most once. */
  private static boolean keysDistinctOnOneSide(SortMergeJoinExec smj) {
    Join join = JoinPlanner.logicalJoin(smj);
    if (join == null) {
      return false;
    }
    return distinctOn(join.left(), smj.leftKeys()) || distinctOn(join.right(), smj.rightKeys());
  }

  private static boolean distinctOn(LogicalPlan side, Seq<Expression> keys) {
    ExpressionSet keySet = ExpressionSet$.MODULE$.apply(keys);
    return withoutStages(side).distinctKeys().exists(distinct -> distinct.subsetOf(keySet));
  }

  /**
   * The plan with each materialized AQE stage replaced by the logical plan it ran: a re-planning pass sees stages as
   * leaves, which know no distinct keys, and would undo the first pass's decision.
   */
  private static LogicalPlan withoutStages(LogicalPlan plan) {
    if (plan instanceof LogicalQueryStage stage) {
      return stage.logicalPlan();
    }
    List<LogicalPlan> children = CollectionConverters.asJava(plan.children());
    List<LogicalPlan> rewritten = new ArrayList<>(children.size());
    boolean changed = false;
    for (LogicalPlan child : children) {
      LogicalPlan c = withoutStages(child);
      changed |= c != child;
      rewritten.add(c);
    }
    return changed ? plan.withNewChildren(CollectionConverters.asScala(rewritten).toSeq()) : plan;
  }

  /**
   * Why a broadcast join a later AQE pass would replace stays vanilla, or null: its build side is Spark's broadcast,
   * already built because an earlier pass kept this join vanilla (an Arrow broadcast would have served the
   * replacement). Replacing it now would walk Spark's hashed relation back into Arrow on every executor, what the
   * Arrow broadcast exists to avoid (TPC-DS q4, q31, q74: the joins above a conditional join that AQE turned into a
   * broadcast join after the broadcast stages under them were built for vanilla joins).
   */
  static String builtForVanillaReason(RowmatchHashJoinExec join, RowmatchConf conf) {
    if (!conf.placementEnabled() || !join.broadcast()) {
      return null;
    }
    SparkPlan build = join.buildSide() instanceof BuildLeft$ ? join.left() : join.right();
    if (!(build instanceof BroadcastQueryStageExec stage) || !(stage.broadcast() instanceof BroadcastExchangeExec e)
        || JoinPlanner.arrowBroadcastReason(join, e, conf) != null) {
      return null;
    }
    return "placement: its build side is Spark's broadcast, built while an earlier planning pass kept this join"
        + " vanilla; a Rowmatch join would convert that hashed relation back into Arrow on every executor";
  }

  /** Whether this policy decided that the node stays vanilla. */
  static boolean keptVanilla(SparkPlan node) {
    return node.getTagValue(KEPT_VANILLA).isDefined();
  }

  /** Removes the origins (they hold the replaced plan) from every node of the plan the pass returns. */
  static SparkPlan strip(SparkPlan plan) {
    plan.unsetTagValue(ORIGIN);
    for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
      strip(child);
    }
    return plan;
  }

  private static final class Island {
    final List<SparkPlan> members = new ArrayList<>();
    double work;
    int rowsIn;
    int rowsOut;
    int arrowStagesIn;
    boolean thisPass = true;

    int transitions() {
      return rowsIn + rowsOut - arrowStagesIn;
    }
  }

  /**
   * Tags the vanilla originals of every island of pass {@code pass} that does not pay with the reason; whether
   * there was one (the caller then plans again, and the tagged nodes stay vanilla).
   */
  static boolean declineUnpaid(SparkPlan plan, long pass, RowmatchConf conf) {
    List<Island> islands = new ArrayList<>();
    visit(plan, null, -1, null, islands, pass);
    boolean declined = false;
    double min = conf.placementMinWork();
    for (Island island : islands) {
      int t = island.transitions();
      if (!island.thisPass || t <= 0 || island.work >= t * min) {
        continue;
      }
      String reason = reason(island, min);
      for (SparkPlan member : island.members) {
        Option<Origin> origin = member.getTagValue(ORIGIN);
        if (origin.isDefined()) {
          SparkPlan original = origin.get().original();
          original.setTagValue(KEPT_VANILLA, Boolean.TRUE);
          FallbackReasons.record(original, reason, conf);
          declined = true;
        }
      }
    }
    return declined;
  }

  private static String reason(Island island, double min) {
    Map<String, Integer> names = new LinkedHashMap<>();
    for (SparkPlan m : island.members) {
      names.merge(m.nodeName(), 1, Integer::sum);
    }
    StringBuilder ops = new StringBuilder();
    names.forEach((name, n) -> ops.append(ops.length() == 0 ? "" : ", ").append(n > 1 ? n + "x " : "").append(name));
    return "placement: " + ops + " would take over " + fmt(island.work) + " unit(s) of work for "
        + island.transitions() + " row/Arrow transition(s) (" + island.rowsIn + " rows->Arrow, " + island.rowsOut
        + " Arrow->rows" + (island.arrowStagesIn > 0 ? ", " + island.arrowStagesIn + " Arrow stage(s) read" : "")
        + "), below " + RowmatchConf.PLACEMENT_MIN_WORK + "=" + fmt(min) + " per transition (set "
        + RowmatchConf.PLACEMENT_ENABLED + "=false to replace it anyway)";
  }

  private static String fmt(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }

  private static void visit(SparkPlan node, SparkPlan parent, int index, Island parentIsland, List<Island> islands,
      long pass) {
    Island mine = null;
    if (arrowNode(node)) {
      if (parentIsland != null && inner(parent, index, node)) {
        mine = parentIsland;
      } else {
        mine = new Island();
        islands.add(mine);
        // Read by a row-based parent; at the root, rows unless the root is an exchange (an AQE stage's writer).
        if (parent != null || !(node instanceof Exchange)) {
          mine.rowsOut++;
        }
      }
      mine.members.add(node);
      Option<Origin> origin = node.getTagValue(ORIGIN);
      if (!(node instanceof UnionExec) && (origin.isEmpty() || origin.get().pass() != pass)) {
        mine.thisPass = false;
      }
      mine.work += work(node, origin.isDefined() ? origin.get().original() : null);
    }
    List<SparkPlan> children = CollectionConverters.asJava(node.children());
    for (int i = 0; i < children.size(); i++) {
      SparkPlan child = children.get(i);
      if (mine != null) {
        if (arrowStage(child) && (readsArrow(node, i) || node instanceof RowmatchHashJoinExec)) {
          mine.arrowStagesIn++;
        } else if (readsArrow(node, i) && !arrowNode(child) && !child.supportsColumnar()) {
          mine.rowsIn++;
        }
      }
      visit(child, node, i, mine, islands, pass);
    }
  }

  private static double work(SparkPlan node, SparkPlan original) {
    if (node instanceof RowmatchHashJoinExec) {
      return original instanceof SortMergeJoinExec ? 2 : 1;
    }
    if (node instanceof RowmatchHashAggregateExec a) {
      return a.child() instanceof RowmatchHashAggregateExec ? 0 : 1; // a final right over its partial: one aggregation
    }
    return node instanceof RowmatchShuffleExchangeExec ? 1 : 0;
  }

  /** A node of an island: a Rowmatch operator, or a union all of whose inputs are columnar (it runs on them). */
  private static boolean arrowNode(SparkPlan node) {
    if (node instanceof RowmatchToArrowExec) {
      return false;
    }
    if (node instanceof ArrowBatchProducer || node instanceof RowmatchBroadcastExchangeExec) {
      return true;
    }
    if (!(node instanceof UnionExec union)) {
      return false;
    }
    boolean anyArrow = false;
    for (SparkPlan c : CollectionConverters.asJava(union.children())) {
      boolean arrow = !(c instanceof RowmatchToArrowExec) && c instanceof ArrowBatchProducer;
      if (!arrow && !c.supportsColumnar() && !arrowStage(c)) {
        return false;
      }
      anyArrow |= arrow;
    }
    return anyArrow;
  }

  private static boolean readsArrow(SparkPlan node, int i) {
    return (node instanceof ArrowBatchConsumer c && c.consumesArrow(i)) || (node instanceof UnionExec && arrowNode(node));
  }

  /** Whether the edge from parent to its child {@code i} passes Arrow batches with no conversion. */
  private static boolean inner(SparkPlan parent, int i, SparkPlan child) {
    return arrowNode(child) && (readsArrow(parent, i)
        || (parent instanceof RowmatchHashJoinExec && child instanceof RowmatchBroadcastExchangeExec));
  }

  /** A materialized AQE stage of Arrow batches: an Arrow shuffle's (or a read of it), or an Arrow broadcast's. */
  private static boolean arrowStage(SparkPlan plan) {
    if (plan instanceof ShuffleQueryStageExec || plan instanceof AQEShuffleReadExec) {
      return InsertArrowTransitions.producesArrow(plan);
    }
    return plan instanceof BroadcastQueryStageExec b && b.broadcast() instanceof RowmatchBroadcastExchangeExec;
  }
}
