package io.rowmatch.spark.rules;

import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.RowToColumnarExec;
import org.apache.spark.sql.execution.RowmatchUnionExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.UnionExec;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.ShuffleQueryStageExec;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.arrow.ArrowBatchConsumer;
import io.rowmatch.spark.arrow.ArrowBatchProducer;
import io.rowmatch.spark.arrow.ArrowSettings;
import io.rowmatch.spark.arrow.RowmatchProjectExec;
import io.rowmatch.spark.arrow.RowmatchToArrowExec;
import io.rowmatch.spark.config.RowmatchConf;

/**
 * After Spark inserted its transitions: under every Rowmatch operator, Spark's RowToColumnarExec (which
 * builds OnHeapColumnVectors) becomes our RowmatchToArrow, a ColumnarToRow/RowToColumnar pair over an
 * Arrow producer cancels out, and a non-Arrow columnar child (a vectorized scan) gets RowmatchToArrow.
 * A column-pruning Project over a Rowmatch join or aggregate becomes a RowmatchProject, so that chains of
 * joins stay in Arrow instead of going to rows and back around every Project. A union that runs columnar
 * becomes a RowmatchUnion, whose columnar path keeps the partitioning the union reports. Last, joins read through
 * a Project output only the columns it reads ({@link PruneJoinOutputs}), and the {@code isnotnull} filters on keys a
 * Rowmatch join drops nulls of itself go ({@link DropKeyNotNullFilters}).
 */
public final class InsertArrowTransitions extends Rule<SparkPlan> {
  @Override
  public SparkPlan apply(SparkPlan plan) {
    RowmatchConf conf = RowmatchConf.current();
    SparkPlan rewritten = rewrite(plan, ArrowSettings.of(conf), conf.enabled());
    return conf.enabled() ? DropKeyNotNullFilters.apply(PruneJoinOutputs.apply(rewritten)) : rewritten;
  }

  @Override
  public String ruleName() {
    return "RowmatchInsertArrowTransitions";
  }

  private SparkPlan rewrite(SparkPlan plan, ArrowSettings settings, boolean enabled) {
    List<SparkPlan> children = CollectionConverters.asJava(plan.children());
    if (children.isEmpty()) {
      return plan;
    }
    List<SparkPlan> newChildren = new ArrayList<>(children.size());
    boolean changed = false;
    for (int i = 0; i < children.size(); i++) {
      SparkPlan child = children.get(i);
      SparkPlan c = rewrite(child, settings, enabled);
      if (plan instanceof ArrowBatchConsumer consumer) {
        if (consumer.consumesArrow(i)) {
          c = arrowInput(c, settings);
        } else {
          c = c instanceof RowToColumnarExec r2c ? r2c.child() : c; // read row-based (a broadcast exchange)
        }
      }
      changed |= c != child;
      newChildren.add(c);
    }
    SparkPlan result = changed ? plan.withNewChildren(CollectionConverters.asScala(newChildren).toSeq()) : plan;
    if (enabled && result instanceof UnionExec union && !(result instanceof RowmatchUnionExec) && union.supportsColumnar()) {
      RowmatchUnionExec partitioned = new RowmatchUnionExec(union.children());
      partitioned.copyTagsFrom(union);
      return partitioned;
    }
    return columnarProject(result, settings);
  }

  /**
   * ProjectExec([attributes]) over ColumnarToRow(Rowmatch join, aggregate or project) becomes
   * ColumnarToRow(RowmatchProject): the rows are made after the pruning, and a Rowmatch parent finds an Arrow
   * producer under the ColumnarToRow/RowToColumnar pair and drops both. Not over RowmatchToArrow: its
   * vectors are reused from batch to batch, and a ColumnarToRow above may close the batches it consumed.
   */
  private static SparkPlan columnarProject(SparkPlan plan, ArrowSettings settings) {
    if (!(plan instanceof ProjectExec p) || !(p.child() instanceof ColumnarToRowExec c2r)) {
      return plan;
    }
    SparkPlan producer = c2r.child();
    if (!(producer instanceof ArrowBatchProducer p2 && p2.ownsOutputBatches())) {
      return plan;
    }
    if (!RowmatchProjectExec.selectsOnly(p.projectList())) {
      return plan;
    }
    RowmatchProjectExec projected = new RowmatchProjectExec(p.projectList(), producer, settings);
    projected.copyTagsFrom(p);
    return new ColumnarToRowExec(projected);
  }

  /** Whether this node's batches are Arrow: a Rowmatch operator, or AQE's stage (or read) of an Arrow shuffle. */
  static boolean producesArrow(SparkPlan plan) {
    if (plan instanceof ArrowBatchProducer) {
      return true;
    }
    if (plan instanceof ShuffleQueryStageExec stage) {
      return stage.shuffle() instanceof ArrowBatchProducer;
    }
    return plan instanceof AQEShuffleReadExec read && producesArrow(read.child());
  }

  private static SparkPlan arrowInput(SparkPlan child, ArrowSettings settings) {
    if (producesArrow(child)) {
      return child;
    }
    if (child instanceof RowToColumnarExec r) {
      SparkPlan inner = r.child();
      if (inner instanceof ColumnarToRowExec c2r && producesArrow(c2r.child())) {
        return c2r.child();
      }
      return new RowmatchToArrowExec(inner, settings);
    }
    if (child.supportsColumnar()) {
      return new RowmatchToArrowExec(child, settings);
    }
    if (child instanceof ColumnarToRowExec c2r) { // under a consumer Spark treats as row-based (a broadcast)
      return producesArrow(c2r.child()) ? c2r.child() : new RowmatchToArrowExec(c2r.child(), settings);
    }
    // Spark always gives a columnar consumer a columnar child; convert rows ourselves if it did not.
    return new RowmatchToArrowExec(child, settings);
  }
}
