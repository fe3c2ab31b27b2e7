package io.rowmatch.spark.window;

import java.util.List;

import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.util.UnsafeRowUtils;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.window.Final$;
import org.apache.spark.sql.execution.window.Partial$;
import org.apache.spark.sql.execution.window.WindowExec;
import org.apache.spark.sql.execution.window.WindowGroupLimitExec;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.config.RowmatchConf;
import io.rowmatch.spark.rules.FallbackReasons;

/**
 * Which window operators' sorts Rowmatch takes over, each only where no ancestor reads the sorted output:
 *
 * <ul>
 *   <li>a partial window group limit (before its shuffle) and its local sort: RowmatchWindowGroupLimit, the
 *       candidates of each group in one pass;
 *   <li>the local sort under a Window or a final window group limit partitioned by keys: RowmatchWindowSort, each
 *       group's rows together and in order, which is all they read (the Window and the limit stay Spark's).
 * </ul>
 */
public final class WindowPlanner {
  private WindowPlanner() {}

  /**
   * The replacement, or null (with the reason recorded where one applies). {@code windowSorts}: whether the window
   * sorts may be replaced in this pass (only the last on a stage: their window's ordering requirement stays unmet,
   * which would keep AQE from coalescing the stage's shuffle reads).
   */
  public static SparkPlan replace(SparkPlan plan, boolean orderNeeded, RowmatchConf conf, boolean windowSorts) {
    if (plan instanceof WindowGroupLimitExec limit && limit.mode() == Partial$.MODULE$
        && limit.child() instanceof SortExec sort && !sort.global()) {
      return partialLimit(limit, sort, orderNeeded, conf);
    }
    if (!windowSorts) {
      return null;
    }
    if (plan instanceof WindowExec w && w.child() instanceof SortExec sort && !sort.global()) {
      return sortedByGroup(plan, w.partitionSpec(), sort, orderNeeded, conf);
    }
    if (plan instanceof WindowGroupLimitExec limit && limit.mode() == Final$.MODULE$
        && limit.child() instanceof SortExec sort && !sort.global()) {
      return sortedByGroup(plan, limit.partitionSpec(), sort, orderNeeded, conf);
    }
    return null;
  }

  private static SparkPlan partialLimit(WindowGroupLimitExec limit, SortExec sort, boolean orderNeeded,
      RowmatchConf conf) {
    if (!conf.windowGroupLimitEnabled()) {
      return null;
    }
    if (orderNeeded) {
      FallbackReasons.record(limit, "a parent relies on the window group limit's sorted output", conf);
      return null;
    }
    if (limit.limit() < 1 || RowmatchWindowGroupLimitExec.kind(limit.rankLikeFunction()).isEmpty()) {
      FallbackReasons.record(limit, "a limit of " + limit.limit() + " by " + limit.rankLikeFunction().prettyName()
          + " is not supported", conf);
      return null;
    }
    RowmatchWindowGroupLimitExec replaced = new RowmatchWindowGroupLimitExec(limit.partitionSpec(),
        limit.orderSpec(), limit.rankLikeFunction(), limit.limit(), conf.windowGroupLimitBufferBytes(),
        conf.memoryLimitBytes(), sort.child());
    replaced.copyTagsFrom(limit);
    return replaced;
  }

  /** The window operator over a RowmatchWindowSort instead of its sort, or null. */
  private static SparkPlan sortedByGroup(SparkPlan window, scala.collection.immutable.Seq<Expression> partitionSpec,
      SortExec sort, boolean orderNeeded, RowmatchConf conf) {
    if (!conf.windowSortEnabled() || partitionSpec.isEmpty()) {
      return null; // no partition keys: one group, the whole input to sort (Spark's sort does it better)
    }
    if (orderNeeded) {
      FallbackReasons.record(sort, "a parent relies on the window's sorted output", conf);
      return null;
    }
    List<Expression> keys = CollectionConverters.asJava(partitionSpec);
    for (Expression k : keys) {
      if (!UnsafeRowUtils.isBinaryStable(k.dataType())) {
        FallbackReasons.record(sort, "partition key " + k.sql() + " of type " + k.dataType().simpleString()
            + " is not compared by its bytes (its groups need the sort's collation)", conf);
        return null;
      }
    }
    List<SortOrder> order = CollectionConverters.asJava(sort.sortOrder());
    RowmatchWindowSortExec replaced = RowmatchWindowSortExec.of(partitionSpec, sort,
        leadsWith(order, keys) ? order.subList(keys.size(), order.size()) : order, conf.windowSortBufferBytes(),
        conf.memoryLimitBytes());
    return window.withNewChildren(CollectionConverters.asScala(List.<SparkPlan>of(replaced)).toSeq());
  }

  /** Whether the sort's first orders are the partition keys, in order (then a group's rows compare by the rest). */
  private static boolean leadsWith(List<SortOrder> order, List<Expression> keys) {
    if (order.size() < keys.size()) {
      return false;
    }
    for (int i = 0; i < keys.size(); i++) {
      if (!order.get(i).child().semanticEquals(keys.get(i))) {
        return false;
      }
    }
    return true;
  }
}
