package io.rowmatch.spark.rules;

import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.config.RowmatchConf;

/**
 * Why an operator stayed vanilla: recorded as a tag on the Spark plan node itself (tags survive Spark's
 * tree copies), logged when spark.rowmatch.explainFallback=true, and listed by {@link #explain}.
 */
public final class FallbackReasons {
  public static final TreeNodeTag<String> TAG = TreeNodeTag.apply("rowmatch.fallback");
  private static final Logger LOG = LoggerFactory.getLogger(FallbackReasons.class);

  private FallbackReasons() {}

  public static void record(SparkPlan node, String reason, RowmatchConf conf) {
    node.setTagValue(TAG, reason);
    if (conf.explainFallback()) {
      LOG.warn("Rowmatch keeps {} vanilla: {}", node.nodeName(), reason);
    }
  }

  /** The recorded reason on this node, or null. */
  public static String reasonOf(SparkPlan node) {
    Option<String> r = node.getTagValue(TAG);
    return r.isDefined() ? r.get() : null;
  }

  /** Every "NodeName: reason" in an executed plan, looking inside adaptive plans and query stages. */
  public static List<String> collect(SparkPlan plan) {
    List<String> out = new ArrayList<>();
    walk(plan, out);
    return out;
  }

  private static void walk(SparkPlan plan, List<String> out) {
    if (plan instanceof AdaptiveSparkPlanExec a) {
      walk(a.executedPlan(), out);
      return;
    }
    if (plan instanceof QueryStageExec q) {
      walk(q.plan(), out);
      return;
    }
    String reason = reasonOf(plan);
    if (reason != null) {
      out.add(plan.nodeName() + ": " + reason);
    }
    for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
      walk(child, out);
    }
  }

  /** The executed plan's tree string followed by the Rowmatch fallback reasons, for EXPLAIN-like output. */
  public static String explain(SparkPlan plan) {
    StringBuilder sb = new StringBuilder(plan.treeString());
    List<String> reasons = collect(plan);
    sb.append("\nRowmatch fallbacks (").append(reasons.size()).append("):\n");
    for (String r : reasons) {
      sb.append("  ").append(r).append('\n');
    }
    return sb.toString();
  }
}
