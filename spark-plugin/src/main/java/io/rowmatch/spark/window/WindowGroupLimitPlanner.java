package io.rowmatch.spark.window;

import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.window.Partial$;
import org.apache.spark.sql.execution.window.WindowGroupLimitExec;

import io.rowmatch.spark.config.RowmatchConf;
import io.rowmatch.spark.rules.FallbackReasons;

/**
 * Which of Spark's window group limits Rowmatch runs: a partial one (before its shuffle) over the local sort
 * Spark added for it, when no ancestor reads its output's order (its shuffle does not); the sort goes with it.
 * The final limit after the shuffle stays Spark's: its input is already cut to the candidates.
 */
public final class WindowGroupLimitPlanner {
  private WindowGroupLimitPlanner() {}

  /** The replacement, or null (with the reason recorded where one applies). */
  public static SparkPlan replace(SparkPlan plan, boolean orderNeeded, RowmatchConf conf) {
    if (!(plan instanceof WindowGroupLimitExec limit) || limit.mode() != Partial$.MODULE$
        || !(limit.child() instanceof SortExec sort) || sort.global()) {
      return null;
    }
    if (!conf.windowGroupLimitEnabled()) {
      return null;
    }
    if (orderNeeded) {
      FallbackReasons.record(plan, "a parent relies on the window group limit's sorted output", conf);
      return null;
    }
    if (limit.limit() < 1 || RowmatchWindowGroupLimitExec.kind(limit.rankLikeFunction()).isEmpty()) {
      FallbackReasons.record(plan, "a limit of " + limit.limit() + " by " + limit.rankLikeFunction().prettyName()
          + " is not supported", conf);
      return null;
    }
    RowmatchWindowGroupLimitExec replaced = new RowmatchWindowGroupLimitExec(limit.partitionSpec(),
        limit.orderSpec(), limit.rankLikeFunction(), limit.limit(), conf.windowGroupLimitBufferBytes(), sort.child());
    replaced.copyTagsFrom(plan);
    return replaced;
  }
}
