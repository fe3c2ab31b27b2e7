package io.rowmatch.spark.rules;

import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.RowToColumnarExec;
import org.apache.spark.sql.execution.SparkPlan;

import io.rowmatch.spark.config.RowmatchConf;
import io.rowmatch.spark.exec.ArrowBatchProducer;
import io.rowmatch.spark.exec.ArrowSettings;
import io.rowmatch.spark.exec.RowInputChildren;
import io.rowmatch.spark.exec.RowmatchToArrowExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * After Spark inserted its transitions: under every Rowmatch operator, Spark's RowToColumnarExec (which
 * builds OnHeapColumnVectors) becomes our RowmatchToArrow, a ColumnarToRow/RowToColumnar pair over an
 * Arrow producer cancels out, and a non-Arrow columnar child (a vectorized scan) gets RowmatchToArrow.
 */
public final class InsertArrowTransitions extends Rule<SparkPlan> {
  @Override
  public SparkPlan apply(SparkPlan plan) {
    RowmatchConf conf = RowmatchConf.current();
    return rewrite(plan, ArrowSettings.of(conf));
  }

  @Override
  public String ruleName() {
    return "RowmatchInsertArrowTransitions";
  }

  private SparkPlan rewrite(SparkPlan plan, ArrowSettings settings) {
    List<SparkPlan> children = CollectionConverters.asJava(plan.children());
    if (children.isEmpty()) {
      return plan;
    }
    boolean consumesArrow = plan instanceof ArrowBatchProducer && !(plan instanceof RowmatchToArrowExec);
    List<SparkPlan> newChildren = new ArrayList<>(children.size());
    boolean changed = false;
    for (int i = 0; i < children.size(); i++) {
      SparkPlan child = children.get(i);
      SparkPlan c = rewrite(child, settings);
      if (plan instanceof RowInputChildren r && r.keepsRowInput(i)) {
        c = c instanceof RowToColumnarExec r2c ? r2c.child() : c; // read row-based (a broadcast exchange)
      } else if (consumesArrow) {
        c = arrowInput(c, settings);
      }
      changed |= c != child;
      newChildren.add(c);
    }
    return changed ? plan.withNewChildren(CollectionConverters.asScala(newChildren).toSeq()) : plan;
  }

  private static SparkPlan arrowInput(SparkPlan child, ArrowSettings settings) {
    if (child instanceof ArrowBatchProducer) {
      return child;
    }
    if (child instanceof RowToColumnarExec r) {
      SparkPlan inner = r.child();
      if (inner instanceof ColumnarToRowExec c2r && c2r.child() instanceof ArrowBatchProducer) {
        return c2r.child();
      }
      return new RowmatchToArrowExec(inner, settings);
    }
    if (child.supportsColumnar()) {
      return new RowmatchToArrowExec(child, settings);
    }
    // Spark always gives a columnar consumer a columnar child; convert rows ourselves if it did not.
    return new RowmatchToArrowExec(child, settings);
  }
}
