package io.rowmatch.spark.rules;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.ExtendedExplainGenerator;
import org.apache.spark.sql.catalyst.plans.QueryPlan;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Adds a Rowmatch section to EXPLAIN EXTENDED / {@code df.explain("extended")}: the Rowmatch operators in
 * the plan and, for every operator left vanilla, the reason recorded in {@link FallbackReasons}.
 *
 * <p>Enabled with {@code spark.sql.extendedExplainProviders=io.rowmatch.spark.rules.RowmatchExplainInfo}.
 * The extension does not set that itself: a SQL setting can only be written once the session state
 * exists, which is after the extension's builders run, and overwriting a user's provider list would be
 * worse than asking for one line of configuration. Spark instantiates this class with its no-arg
 * constructor.
 */
public final class RowmatchExplainInfo implements ExtendedExplainGenerator {
  @Override
  public String title() {
    return "Rowmatch";
  }

  @Override
  public String generateExtendedInfo(SparkPlan plan) {
    List<String> replaced = new ArrayList<>();
    List<String> fallbacks = new ArrayList<>();
    walk(plan, replaced, fallbacks, new IdentityHashMap<>());
    StringBuilder sb = new StringBuilder();
    sb.append("Rowmatch operators (").append(replaced.size()).append("):\n");
    for (String r : replaced) {
      sb.append("  ").append(r).append('\n');
    }
    sb.append("Rowmatch fallbacks (").append(fallbacks.size()).append("):\n");
    for (String f : fallbacks) {
      sb.append("  ").append(f).append('\n');
    }
    return sb.toString();
  }

  /** Children, adaptive plans, query stages and subqueries; each node once (reused exchanges repeat). */
  private static void walk(
      QueryPlan<?> node, List<String> replaced, List<String> fallbacks, Map<QueryPlan<?>, Boolean> seen) {
    if (seen.put(node, Boolean.TRUE) != null) {
      return;
    }
    if (node instanceof AdaptiveSparkPlanExec a) {
      walk(a.executedPlan(), replaced, fallbacks, seen);
      return;
    }
    if (node instanceof QueryStageExec q) {
      walk(q.plan(), replaced, fallbacks, seen);
      return;
    }
    if (node instanceof SparkPlan p) {
      if (p.nodeName().startsWith("Rowmatch")) {
        replaced.add(p.simpleString(25)); // names the vanilla operator it replaces
      }
      String reason = FallbackReasons.reasonOf(p);
      if (reason != null) {
        fallbacks.add(p.nodeName() + ": " + reason);
      }
    }
    for (Object child : CollectionConverters.asJava(node.children())) {
      walk((QueryPlan<?>) child, replaced, fallbacks, seen);
    }
    for (QueryPlan<?> inner : CollectionConverters.asJava(node.innerChildren())) {
      walk(inner, replaced, fallbacks, seen);
    }
  }
}
