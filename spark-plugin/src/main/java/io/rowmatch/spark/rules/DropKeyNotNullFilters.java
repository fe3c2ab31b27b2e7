package io.rowmatch.spark.rules;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.execution.SparkPlan;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.arrow.RowmatchFilterExec;
import io.rowmatch.spark.arrow.RowmatchProjectExec;
import io.rowmatch.spark.join.JoinSpec;
import io.rowmatch.spark.join.RowmatchHashJoinExec;

/**
 * Spark infers {@code isnotnull(k)} for every inner and semi equi-join key and plans it as a Filter under the join. A
 * Rowmatch hash join drops a row with a null key itself (it never matches), so such a conjunct only costs a pass: the
 * kept-row selection, then a gather of every column read above it (TPC-DS: ~4% of each fact key is null, so no batch
 * passes whole; vanilla's generated code fuses the test into the join's loop). Top-down, this pass collects the
 * columns whose null rows a Rowmatch join above drops (its probe keys that never match null; a key of a join further
 * up, through condition-free inner and semi joins, column picks and filters that do not read it), and removes those
 * columns' {@code isnotnull} from a RowmatchFilter made only of such tests (the whole filter when none remains).
 *
 * <p>Between the removed filter and the join, batches carry nulls in columns the plan declares non-null; only
 * Rowmatch operators that read validity whatever the declared nullability stand there (never an exchange, a row
 * operator, a computed projection or a join condition), and the join's output holds no such null.
 */
final class DropKeyNotNullFilters {
  private DropKeyNotNullFilters() {}

  static SparkPlan apply(SparkPlan plan) {
    return drop(plan, Set.of());
  }

  /** {@code rejected}: the columns of this node's output whose null rows an operator above drops anyway. */
  private static SparkPlan drop(SparkPlan plan, Set<ExprId> rejected) {
    if (plan instanceof RowmatchFilterExec f && !rejected.isEmpty()) {
      Option<Seq<Attribute>> cols = RowmatchFilterExec.notNullOnly(f.condition(), f.child().output());
      if (cols.isDefined()) {
        List<Attribute> remaining = new ArrayList<>();
        for (Attribute a : CollectionConverters.asJava(cols.get())) {
          if (!rejected.contains(a.exprId())) {
            remaining.add(a);
          }
        }
        if (remaining.isEmpty()) {
          return drop(f.child(), rejected);
        }
        if (remaining.size() < cols.get().size()) {
          Expression c = new IsNotNull(remaining.get(0));
          for (int i = 1; i < remaining.size(); i++) {
            c = new And(c, new IsNotNull(remaining.get(i)));
          }
          RowmatchFilterExec narrowed = new RowmatchFilterExec(c, drop(f.child(), rejected), f.settings());
          narrowed.copyTagsFrom(f);
          return narrowed;
        }
      }
      // A filter kept as it is passes on the columns it does not read (it evaluates no expression over those).
      Set<ExprId> below = new HashSet<>(rejected);
      for (Attribute a : CollectionConverters.asJava(f.condition().references().toSeq())) {
        below.remove(a.exprId());
      }
      return withChildren(plan, List.of(drop(f.child(), below)));
    }
    if (plan instanceof RowmatchProjectExec p && RowmatchProjectExec.selectsOnly(p.projectList())) {
      Set<ExprId> below = new HashSet<>();
      for (NamedExpression e : CollectionConverters.asJava(p.projectList())) {
        if (rejected.contains(e.exprId())) {
          below.add(RowmatchProjectExec.selects(e).get().exprId());
        }
      }
      return withChildren(plan, List.of(drop(p.child(), below)));
    }
    if (plan instanceof RowmatchHashJoinExec j) {
      JoinSpec s = j.spec();
      int probeSide = s.buildLeft ? 1 : 0;
      SparkPlan probe = j.children().apply(probeSide);
      Set<ExprId> below = new HashSet<>();
      if ((s.kind == JoinSpec.Kind.INNER || s.kind == JoinSpec.Kind.LEFT_SEMI) && !s.nullAwareAnti) {
        List<Attribute> out = CollectionConverters.asJava(probe.output());
        if (j.condition().isEmpty()) {
          // No condition to evaluate on a row an operator above would drop: its rows pass through unchanged.
          for (Attribute a : out) {
            if (rejected.contains(a.exprId())) {
              below.add(a.exprId());
            }
          }
        }
        for (int i = 0; i < s.probeKeys.length; i++) {
          if (!s.nullsEqual[i] && s.probeKeys[i] < out.size()) {
            below.add(out.get(s.probeKeys[i]).exprId());
          }
        }
      }
      List<SparkPlan> kids = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        SparkPlan c = j.children().apply(i);
        kids.add(drop(c, i == probeSide ? below : Set.of()));
      }
      return withChildren(plan, kids);
    }
    List<SparkPlan> kids = new ArrayList<>();
    for (SparkPlan c : CollectionConverters.asJava(plan.children())) {
      kids.add(drop(c, Set.of()));
    }
    return withChildren(plan, kids);
  }

  private static SparkPlan withChildren(SparkPlan plan, List<SparkPlan> kids) {
    List<SparkPlan> old = CollectionConverters.asJava(plan.children());
    boolean changed = false;
    for (int i = 0; i < kids.size(); i++) {
      changed |= kids.get(i) != old.get(i);
    }
    return changed ? plan.withNewChildren(CollectionConverters.asScala(kids).toSeq()) : plan;
  }
}
