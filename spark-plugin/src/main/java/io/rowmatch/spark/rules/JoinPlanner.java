package io.rowmatch.spark.rules;

import io.rowmatch.spark.config.RowmatchConf;
import io.rowmatch.spark.exec.RowmatchHashJoinExec;
import io.rowmatch.spark.join.JoinSpec;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Coalesce;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.PlanExpression;
import org.apache.spark.sql.catalyst.optimizer.BuildLeft$;
import org.apache.spark.sql.catalyst.optimizer.BuildRight$;
import org.apache.spark.sql.catalyst.optimizer.BuildSide;
import org.apache.spark.sql.catalyst.expressions.KnownFloatingPointNormalized;
import org.apache.spark.sql.catalyst.optimizer.NormalizeNaNAndZero;
import org.apache.spark.sql.catalyst.plans.FullOuter$;
import org.apache.spark.sql.catalyst.plans.InnerLike;
import org.apache.spark.sql.catalyst.plans.JoinType;
import org.apache.spark.sql.catalyst.plans.LeftAnti$;
import org.apache.spark.sql.catalyst.plans.LeftOuter$;
import org.apache.spark.sql.catalyst.plans.LeftSemi$;
import org.apache.spark.sql.catalyst.plans.RightOuter$;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec;
import org.apache.spark.sql.execution.joins.ShuffledHashJoinExec;
import org.apache.spark.sql.execution.joins.SortMergeJoinExec;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides whether a Spark equi-join (broadcast hash, shuffled hash, or sort-merge run as a shuffled hash
 * join) can run as a RowmatchHashJoin, resolving it into a {@link JoinSpec}; otherwise records the reason
 * on the node. Keys must be columns, optionally wrapped the way Spark's optimizer wraps them: float keys in
 * KnownFloatingPointNormalized(NormalizeNaNAndZero(..)) (so NaN matches NaN and -0.0 matches 0.0), and
 * null-safe {@code a <=> b} rewritten to the key pair coalesce(a, default), isnull(a), which collapses back
 * into one null-safe key. Anything else stays vanilla with its reason.
 */
public final class JoinPlanner {
  private JoinPlanner() {}

  private static final class Refusal extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refusal(String reason) {
      super(reason, null, false, false);
    }
  }

  /** The replacement, the node itself tagged with why it stays, or null when {@code plan} is not a join we handle. */
  public static SparkPlan replace(SparkPlan plan, boolean orderNeeded, RowmatchConf conf) {
    boolean broadcast = plan instanceof BroadcastHashJoinExec;
    boolean sortMerge = plan instanceof SortMergeJoinExec;
    if (!broadcast && !sortMerge && !(plan instanceof ShuffledHashJoinExec)) {
      return null;
    }
    try {
      return build(plan, broadcast, sortMerge, orderNeeded, conf);
    } catch (Refusal r) {
      FallbackReasons.record(plan, r.getMessage(), conf);
      return plan;
    }
  }

  private static SparkPlan build(SparkPlan plan, boolean broadcast, boolean sortMerge, boolean orderNeeded,
      RowmatchConf conf) {
    if (!conf.joinEnabled()) {
      throw new Refusal(RowmatchConf.JOIN_ENABLED + "=false");
    }
    if (sortMerge && !conf.joinReplaceSortMerge()) {
      throw new Refusal(RowmatchConf.JOIN_REPLACE_SORT_MERGE + "=false");
    }
    Seq<Expression> leftKeys;
    Seq<Expression> rightKeys;
    JoinType joinType;
    Option<Expression> condition;
    SparkPlan left;
    SparkPlan right;
    BuildSide buildSide;
    boolean skew = false;
    if (broadcast) {
      BroadcastHashJoinExec j = (BroadcastHashJoinExec) plan;
      if (j.isNullAwareAntiJoin()) {
        throw new Refusal("null-aware anti join (NOT IN) is not supported");
      }
      leftKeys = j.leftKeys();
      rightKeys = j.rightKeys();
      joinType = j.joinType();
      condition = j.condition();
      left = j.left();
      right = j.right();
      buildSide = j.buildSide();
    } else if (sortMerge) {
      SortMergeJoinExec j = (SortMergeJoinExec) plan;
      leftKeys = j.leftKeys();
      rightKeys = j.rightKeys();
      joinType = j.joinType();
      condition = j.condition();
      // The sorts existed only to feed the merge; nothing above relies on the join's order (checked below).
      left = unsorted(j.left());
      right = unsorted(j.right());
      buildSide = chooseBuildSide(j, joinType);
      skew = j.isSkewJoin();
    } else {
      ShuffledHashJoinExec j = (ShuffledHashJoinExec) plan;
      leftKeys = j.leftKeys();
      rightKeys = j.rightKeys();
      joinType = j.joinType();
      condition = j.condition();
      left = j.left();
      right = j.right();
      buildSide = j.buildSide();
      skew = j.isSkewJoin();
    }
    if (orderNeeded && !plan.outputOrdering().isEmpty()) {
      throw new Refusal("a parent relies on the join's output ordering");
    }
    JoinSpec.Kind kind = kind(joinType);
    boolean buildLeft = buildSide == BuildLeft$.MODULE$;

    List<Attribute> leftOut = CollectionConverters.asJava(left.output());
    List<Attribute> rightOut = CollectionConverters.asJava(right.output());
    checkColumns("left", leftOut);
    checkColumns("right", rightOut);

    List<Expression> lk = CollectionConverters.asJava(leftKeys);
    List<Expression> rk = CollectionConverters.asJava(rightKeys);
    if (lk.size() != rk.size() || lk.isEmpty()) {
      throw new Refusal("join without equi-join keys");
    }
    List<KeyPair> keys = collapseNullSafe(lk, rk);
    int n = keys.size();
    int[] leftOrdinals = new int[n];
    int[] rightOrdinals = new int[n];
    boolean[] nullsEqual = new boolean[n];
    boolean[] nansEqual = new boolean[n];
    Map<ExprId, Integer> leftIds = ordinals(leftOut);
    Map<ExprId, Integer> rightIds = ordinals(rightOut);
    for (int i = 0; i < n; i++) {
      KeyPair k = keys.get(i);
      DataType lt = k.left.column.dataType();
      DataType rt = k.right.column.dataType();
      if (!lt.sameType(rt)) {
        throw new Refusal("key types differ: " + lt.simpleString() + " and " + rt.simpleString());
      }
      String why = keyType(lt);
      if (why != null) {
        throw new Refusal("key " + k.left.column.sql() + ": " + why);
      }
      boolean floating = lt instanceof FloatType || lt instanceof DoubleType;
      if (floating && !(k.left.normalized && k.right.normalized)) {
        throw new Refusal("float key " + k.left.column.sql() + " without NormalizeNaNAndZero");
      }
      leftOrdinals[i] = ordinal(leftIds, k.left.column, "left");
      rightOrdinals[i] = ordinal(rightIds, k.right.column, "right");
      nullsEqual[i] = k.nullSafe;
      nansEqual[i] = floating;
    }
    if (condition.isDefined()) {
      Expression c = condition.get();
      if (!c.deterministic()) {
        throw new Refusal("non-deterministic join condition " + c.sql());
      }
      if (containsSubquery(c)) {
        throw new Refusal("subquery in join condition " + c.sql());
      }
    }
    String name = plan.nodeName();
    JoinSpec spec = new JoinSpec(kind, buildLeft, buildLeft ? leftOrdinals : rightOrdinals,
        buildLeft ? rightOrdinals : leftOrdinals, nullsEqual, nansEqual, schema(leftOut), schema(rightOut),
        conf.sessionTimeZone(), conf.batchSize(), conf.memoryLimitBytes(), "RowmatchHashJoin");
    RowmatchHashJoinExec replaced = new RowmatchHashJoinExec(leftKeys, rightKeys, joinType, buildSide, condition,
        left, right, broadcast, skew, spec, name);
    replaced.copyTagsFrom(plan);
    return replaced;
  }

  private static JoinSpec.Kind kind(JoinType t) {
    if (t instanceof InnerLike) {
      return JoinSpec.Kind.INNER;
    }
    if (t == LeftOuter$.MODULE$) {
      return JoinSpec.Kind.LEFT_OUTER;
    }
    if (t == RightOuter$.MODULE$) {
      return JoinSpec.Kind.RIGHT_OUTER;
    }
    if (t == FullOuter$.MODULE$) {
      return JoinSpec.Kind.FULL_OUTER;
    }
    if (t == LeftSemi$.MODULE$) {
      return JoinSpec.Kind.LEFT_SEMI;
    }
    if (t == LeftAnti$.MODULE$) {
      return JoinSpec.Kind.LEFT_ANTI;
    }
    throw new Refusal("join type " + t + " is not supported");
  }

  private static SparkPlan unsorted(SparkPlan child) {
    return child instanceof SortExec s && !s.global() ? s.child() : child;
  }

  /**
   * For a sort-merge join we pick the side to hash: the right for left outer/semi/anti, the left for right
   * outer, and for inner and full outer the side the optimizer's statistics say is smaller (right on a tie).
   */
  private static BuildSide chooseBuildSide(SortMergeJoinExec j, JoinType t) {
    if (t == RightOuter$.MODULE$) {
      return BuildLeft$.MODULE$;
    }
    if (t instanceof InnerLike || t == FullOuter$.MODULE$) {
      Option<LogicalPlan> link = j.logicalLink();
      if (link.isDefined() && link.get() instanceof Join join) {
        try {
          if (join.left().stats().sizeInBytes().compare(join.right().stats().sizeInBytes()) < 0) {
            return BuildLeft$.MODULE$;
          }
        } catch (RuntimeException e) {
          // No statistics: keep the default.
        }
      }
    }
    return BuildRight$.MODULE$;
  }

  /** One side of a key: the column, and how Spark wrapped it. */
  private static final class KeySide {
    final AttributeReference column;
    final boolean normalized;

    KeySide(AttributeReference column, boolean normalized) {
      this.column = column;
      this.normalized = normalized;
    }
  }

  private static final class KeyPair {
    final KeySide left;
    final KeySide right;
    final boolean nullSafe;

    KeyPair(KeySide left, KeySide right, boolean nullSafe) {
      this.left = left;
      this.right = right;
      this.nullSafe = nullSafe;
    }
  }

  /** Key expressions after peeling Spark's wrappers: a column, coalesce(column, literal) or isnull(column). */
  private static final class Peeled {
    final Expression inner;
    final boolean normalized;
    final boolean coalesce;
    final boolean isNull;

    Peeled(Expression e) {
      boolean norm = false;
      boolean co = false;
      boolean nul = false;
      Expression x = stripNormalize(e);
      norm = x != e;
      if (x instanceof Coalesce c && c.children().size() == 2 && c.children().apply(1) instanceof Literal lit
          && lit.value() != null) {
        co = true;
        Expression a = c.children().apply(0);
        Expression stripped = stripNormalize(a);
        norm |= stripped != a;
        x = stripped;
      } else if (x instanceof IsNull in) {
        nul = true;
        x = in.child();
      }
      this.inner = x;
      this.normalized = norm;
      this.coalesce = co;
      this.isNull = nul;
    }

    private static Expression stripNormalize(Expression e) {
      if (e instanceof KnownFloatingPointNormalized kn && kn.child() instanceof NormalizeNaNAndZero nz) {
        return nz.child();
      }
      return e;
    }

    KeySide side(String where) {
      if (!(inner instanceof AttributeReference ref)) {
        throw new Refusal(where + " key " + inner.sql() + " is an expression, not a column");
      }
      return new KeySide(ref, normalized);
    }
  }

  /**
   * Pairs Spark's null-safe rewrite back up: key i = coalesce(a, d) with key j = isnull(a) on both sides is
   * one key a with nulls equal (both null: equal; one null: the isnull keys differ; none: a = b).
   */
  private static List<KeyPair> collapseNullSafe(List<Expression> lk, List<Expression> rk) {
    int n = lk.size();
    Peeled[] l = new Peeled[n];
    Peeled[] r = new Peeled[n];
    for (int i = 0; i < n; i++) {
      l[i] = new Peeled(lk.get(i));
      r[i] = new Peeled(rk.get(i));
    }
    boolean[] used = new boolean[n];
    List<KeyPair> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (used[i] || l[i].isNull || r[i].isNull) {
        continue;
      }
      if (l[i].coalesce != r[i].coalesce) {
        throw new Refusal("key pair " + lk.get(i).sql() + " = " + rk.get(i).sql() + " is not supported");
      }
      if (!l[i].coalesce) {
        used[i] = true;
        out.add(new KeyPair(l[i].side("left"), r[i].side("right"), false));
        continue;
      }
      int partner = -1;
      for (int j = 0; j < n; j++) {
        if (!used[j] && j != i && l[j].isNull && r[j].isNull && l[j].inner.semanticEquals(l[i].inner)
            && r[j].inner.semanticEquals(r[i].inner)) {
          partner = j;
          break;
        }
      }
      if (partner < 0) {
        throw new Refusal("key " + lk.get(i).sql() + " is an expression, not a column");
      }
      used[i] = true;
      used[partner] = true;
      out.add(new KeyPair(l[i].side("left"), r[i].side("right"), true));
    }
    for (int i = 0; i < n; i++) {
      if (!used[i]) {
        throw new Refusal("key " + lk.get(i).sql() + " is an expression, not a column");
      }
    }
    return out;
  }

  private static String keyType(DataType t) {
    if (t instanceof NullType) {
      return "null-typed keys are not supported";
    }
    return AggregatePlanner.keyTypeReason(t);
  }

  /** Join inputs travel as Arrow batches gathered value by value: atomic types only for now. */
  private static void checkColumns(String side, List<Attribute> columns) {
    for (Attribute a : columns) {
      String why = keyType(a.dataType());
      if (why != null) {
        throw new Refusal(side + " column " + a.name() + " of type " + a.dataType().simpleString()
            + " is not supported in joins yet");
      }
    }
  }

  private static Map<ExprId, Integer> ordinals(List<Attribute> output) {
    Map<ExprId, Integer> m = new HashMap<>();
    for (int i = 0; i < output.size(); i++) {
      m.putIfAbsent(output.get(i).exprId(), i);
    }
    return m;
  }

  private static int ordinal(Map<ExprId, Integer> ids, AttributeReference key, String side) {
    Integer o = ids.get(key.exprId());
    if (o == null) {
      throw new Refusal(side + " key " + key.sql() + " is not a column of the " + side + " child");
    }
    return o;
  }

  private static boolean containsSubquery(Expression e) {
    if (e instanceof PlanExpression) {
      return true;
    }
    for (Expression c : CollectionConverters.asJava(e.children())) {
      if (containsSubquery(c)) {
        return true;
      }
    }
    return false;
  }

  private static StructType schema(List<Attribute> attrs) {
    StructField[] fields = new StructField[attrs.size()];
    for (int i = 0; i < fields.length; i++) {
      Attribute a = attrs.get(i);
      fields[i] = new StructField(a.name(), a.dataType(), a.nullable(), Metadata.empty());
    }
    return new StructType(fields);
  }
}
