package io.rowmatch.bench.tpch;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.spark.sql.catalyst.trees.TreeNode;
import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What an executed plan ran: the operators whose name starts with a prefix ("Rowmatch", "Comet"), and the
 * fallback reasons the plugin left on the operators it did not replace.
 *
 * <p>AQE hides the real plan: {@link AdaptiveSparkPlanExec#finalPhysicalPlan()} is walked, and query
 * stages are entered through their {@code plan}. Reused exchanges are not entered (their stage ran once
 * and is counted where it is defined). Subquery plans (Q2, Q11, Q15, Q17, Q20, Q22) are included.
 *
 * <p>Fallback reasons: any {@link TreeNodeTag} whose name contains "rowmatch" (any case) is read, and its
 * value's {@code toString()} reported. Spark keeps tags in a private field, so it is read reflectively;
 * this keeps the runner independent of the plugin's classes (the plugin may be absent).
 */
public final class PlanInspector {
  private static final Field TAGS = tagsField();

  /** The result: operator counts by name (only those with the prefix) and the reasons, in plan order. */
  public record Inspection(Map<String, Integer> operators, List<String> fallbackReasons) {
    public int operatorCount() {
      return operators.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** "RowmatchHashJoin x3, RowmatchHashAggregate x2", or "-" when there are none. */
    public String operatorSummary() {
      if (operators.isEmpty()) {
        return "-";
      }
      List<String> parts = new ArrayList<>();
      operators.forEach((name, count) -> parts.add(count == 1 ? name : name + " x" + count));
      return String.join(", ", parts);
    }
  }

  private PlanInspector() {}

  public static Inspection inspect(SparkPlan executedPlan, String operatorPrefix) {
    Map<String, Integer> operators = new TreeMap<>();
    List<String> reasons = new ArrayList<>();
    visit(executedPlan, operatorPrefix, operators, reasons);
    return new Inspection(operators, reasons);
  }

  /** Every operator that ran, by name (e.g. to check which join strategy Spark used). */
  public static Map<String, Integer> allOperators(SparkPlan executedPlan) {
    return inspect(executedPlan, "").operators();
  }

  private static void visit(SparkPlan plan, String prefix, Map<String, Integer> operators, List<String> reasons) {
    if (plan instanceof AdaptiveSparkPlanExec adaptive) {
      visit(adaptive.finalPhysicalPlan(), prefix, operators, reasons);
      return;
    }
    if (plan instanceof QueryStageExec stage) {
      visit(stage.plan(), prefix, operators, reasons);
      return;
    }
    if (plan instanceof ReusedExchangeExec) {
      return;
    }
    String name = plan.nodeName();
    if (name.startsWith(prefix)) {
      operators.merge(name, 1, Integer::sum);
    }
    for (String reason : rowmatchTags(plan)) {
      String line = name + ": " + reason;
      if (!reasons.contains(line)) {
        reasons.add(line);
      }
    }
    for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
      visit(child, prefix, operators, reasons);
    }
    for (SparkPlan subquery : CollectionConverters.asJava(plan.subqueries())) {
      visit(subquery, prefix, operators, reasons);
    }
  }

  private static List<String> rowmatchTags(TreeNode<?> node) {
    List<String> values = new ArrayList<>();
    if (TAGS == null) {
      return values;
    }
    try {
      Object tags = TAGS.get(node);
      if (tags instanceof scala.collection.Map<?, ?> map) {
        for (Map.Entry<?, ?> entry : CollectionConverters.asJava(map).entrySet()) {
          if (entry.getKey() instanceof TreeNodeTag<?> tag
              && tag.name().equals(io.rowmatch.spark.rules.FallbackReasons.TAG.name())) {
            values.add(String.valueOf(entry.getValue()));
          }
        }
      }
    } catch (IllegalAccessException e) {
      values.add("(cannot read plan tags: " + e.getMessage() + ")");
    }
    return values;
  }

  private static Field tagsField() {
    try {
      Field field = TreeNode.class.getDeclaredField("_tags");
      field.setAccessible(true);
      return field;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null; // another Spark version: counts still work, reasons are not shown
    }
  }
}
