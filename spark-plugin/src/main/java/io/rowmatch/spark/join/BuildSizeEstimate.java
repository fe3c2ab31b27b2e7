package io.rowmatch.spark.join;

import java.math.BigInteger;

import org.apache.spark.MapOutputStatistics;
import org.apache.spark.sql.catalyst.plans.LeftAnti$;
import org.apache.spark.sql.catalyst.plans.LeftSemi$;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.CoalescedPartitionSpec;
import org.apache.spark.sql.execution.PartialReducerPartitionSpec;
import org.apache.spark.sql.execution.ShufflePartitionSpec;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.BroadcastQueryStageExec;
import org.apache.spark.sql.execution.adaptive.ShuffleQueryStageExec;
import org.apache.spark.sql.internal.SQLConf;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What Spark knows, at planning, of the bytes one task of a join must hash: the build side of one shuffle
 * partition (the largest), or the whole broadcast relation. In order of trust:
 * <ol>
 *   <li>AQE's runtime statistics of a materialized build stage: the shuffle's bytes per reduce partition
 *       (summed as AQE coalesced them), or the broadcast relation's data size;
 *   <li>the optimizer's estimate of the build side's logical plan, divided by the partition count for a
 *       shuffled join; ignored when it is Spark's "unknown" default, and when the build side holds a join the
 *       optimizer sized without row counts: without CBO an inner, outer or existence join's size is the product of
 *       its inputs' sizes (TPC-DS q10's semi join build side, store_sales x date_dim, came out at 11 GB per task
 *       for a few thousand rows, and q59's re-planned join of two aggregated stages likewise), which says
 *       nothing about the rows it returns.
 * </ol>
 * Shuffle bytes are compressed and the Arrow build side adds its key table, so the figure is a lower bound
 * of the memory the build needs: the planner only stays vanilla when even this figure exceeds the memory
 * limit, and the runtime error naming the setting remains for the rest.
 */
final class BuildSizeEstimate {
  private BuildSizeEstimate() {}

  /** The estimate and where it came from, or null when Spark knows nothing useful. */
  static final class Estimate {
    final long bytes;
    final String source;

    Estimate(long bytes, String source) {
      this.bytes = bytes;
      this.source = source;
    }
  }

  static Estimate of(SparkPlan join, SparkPlan build, boolean broadcast, boolean buildLeft) {
    Estimate e = runtime(build);
    return e != null ? e : logical(join, build, broadcast, buildLeft);
  }

  private static Estimate runtime(SparkPlan p) {
    while (p instanceof SortExec s) {
      p = s.child();
    }
    if (p instanceof BroadcastQueryStageExec b && b.isMaterialized()) {
      return new Estimate(b.getRuntimeStatistics().sizeInBytes().longValue(), "broadcast relation size");
    }
    AQEShuffleReadExec read = null;
    if (p instanceof AQEShuffleReadExec r) {
      read = r;
      p = r.child();
    }
    if (!(p instanceof ShuffleQueryStageExec stage) || !stage.isMaterialized() || stage.mapStats().isEmpty()) {
      return null;
    }
    MapOutputStatistics stats = stage.mapStats().get();
    long[] bytes = stats.bytesByPartitionId();
    long max = 0;
    if (read == null) {
      for (long b : bytes) {
        max = Math.max(max, b);
      }
    } else {
      for (ShufflePartitionSpec spec : CollectionConverters.asJava(read.partitionSpecs())) {
        long size;
        if (spec instanceof CoalescedPartitionSpec c) {
          size = 0;
          for (int i = c.startReducerIndex(); i < c.endReducerIndex() && i < bytes.length; i++) {
            size += bytes[i];
          }
        } else if (spec instanceof PartialReducerPartitionSpec pr) {
          size = pr.dataSize();
        } else {
          return null; // a read AQE arranged by mapper: no per-task figure at hand
        }
        max = Math.max(max, size);
      }
    }
    return new Estimate(max, "largest shuffle partition (compressed)");
  }

  private static Estimate logical(SparkPlan join, SparkPlan build, boolean broadcast, boolean buildLeft) {
    Join j = JoinPlanner.logicalJoin(join);
    if (j == null) {
      return null;
    }
    LogicalPlan side = buildLeft ? j.left() : j.right();
    BigInteger size;
    try {
      if (holdsProductEstimate(side)) {
        return null;
      }
      size = side.stats().sizeInBytes().bigInteger();
    } catch (RuntimeException e) {
      return null;
    }
    if (size.compareTo(BigInteger.valueOf(SQLConf.get().defaultSizeInBytes())) >= 0) {
      return null; // Spark's "size unknown"
    }
    if (broadcast) {
      return new Estimate(size.min(BigInteger.valueOf(Long.MAX_VALUE)).longValue(), "optimizer estimate");
    }
    int partitions = build.outputPartitioning().numPartitions();
    if (partitions <= 0) {
      return null;
    }
    BigInteger perTask = size.divide(BigInteger.valueOf(partitions));
    return new Estimate(perTask.min(BigInteger.valueOf(Long.MAX_VALUE)).longValue(),
        "optimizer estimate / " + partitions + " partitions");
  }

  /**
   * Whether some join in this plan was sized as the product of its inputs (no row count: CBO off or without
   * column statistics); a semi or anti join is sized as its left side, which is a bound. A materialized AQE stage
   * is a leaf here, with its runtime size.
   */
  static boolean holdsProductEstimate(LogicalPlan plan) {
    if (plan instanceof Join j && j.joinType() != LeftSemi$.MODULE$ && j.joinType() != LeftAnti$.MODULE$
        && j.stats().rowCount().isEmpty()) {
      return true;
    }
    for (LogicalPlan child : CollectionConverters.asJava(plan.children())) {
      if (holdsProductEstimate(child)) {
        return true;
      }
    }
    return false;
  }
}
