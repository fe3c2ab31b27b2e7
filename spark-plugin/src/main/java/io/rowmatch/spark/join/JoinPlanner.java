package io.rowmatch.spark.join;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Coalesce;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.KnownFloatingPointNormalized;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.PlanExpression;
import org.apache.spark.sql.catalyst.optimizer.BuildLeft$;
import org.apache.spark.sql.catalyst.optimizer.BuildRight$;
import org.apache.spark.sql.catalyst.optimizer.BuildSide;
import org.apache.spark.sql.catalyst.optimizer.NormalizeNaNAndZero;
import org.apache.spark.sql.catalyst.plans.ExistenceJoin;
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
import org.apache.spark.sql.execution.exchange.BroadcastExchangeExec;
import org.apache.spark.sql.execution.joins.BaseJoinExec;
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec;
import org.apache.spark.sql.execution.joins.HashedRelationBroadcastMode;
import org.apache.spark.sql.execution.joins.ShuffledHashJoinExec;
import org.apache.spark.sql.execution.joins.SortMergeJoinExec;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.config.RowmatchConf;
import io.rowmatch.spark.rules.FallbackReasons;
import io.rowmatch.spark.shuffle.ShuffleColumns;
import io.rowmatch.spark.types.TypeSupport;

/**
 * Decides whether a Spark equi-join (broadcast hash, shuffled hash, or sort-merge run as a shuffled hash
 * join) can run as a RowmatchHashJoin, resolving it into a {@link JoinSpec}; otherwise records the reason
 * on the node. Keys are columns, or deterministic expressions (Spark's casts between compatible key types,
 * anything else) that the join computes per batch; Spark's wrappers are peeled where the core does their
 * work: float keys in KnownFloatingPointNormalized(NormalizeNaNAndZero(..)) (the core matches NaN with NaN
 * and -0.0 with 0.0), and null-safe {@code a <=> b}, rewritten to the key pair coalesce(a, default),
 * isnull(a), collapses back into one null-safe key. Key types: atomic, structs, arrays of atomic values
 * ({@link TypeSupport}). Spark's null-aware anti join (NOT IN) is kept as such, and so is its ExistenceJoin (EXISTS or
 * IN under OR/CASE: every left row and whether it has a match; built on the right). A build side whose size
 * Spark's statistics put over the memory limit stays vanilla ({@link BuildSizeEstimate}).
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

  /**
   * Null when the broadcast under this Rowmatch join can move Arrow batches (RowmatchBroadcastExchange), else
   * why it stays Spark's: a null-aware anti join's relation tells null keys apart by its type, and the batches
   * are Arrow shuffle records, so their columns are the shuffle's.
   */
  public static String arrowBroadcastReason(RowmatchHashJoinExec join, BroadcastExchangeExec exchange,
      RowmatchConf conf) {
    if (!conf.broadcastEnabled()) {
      return RowmatchConf.BROADCAST_ENABLED + "=false";
    }
    if (!(exchange.mode() instanceof HashedRelationBroadcastMode mode) || mode.isNullAware() || join.spec().nullAwareAnti) {
      return "a null-aware anti join's broadcast stays Spark's hash relation (it records null keys)";
    }
    String columns = ShuffleColumns.unsupportedReason(exchange.child().schema());
    return columns == null ? null : "Arrow broadcast: " + columns;
  }

  private static SparkPlan build(SparkPlan plan, boolean broadcast, boolean sortMerge, boolean orderNeeded,
      RowmatchConf conf) {
    if (!conf.joinEnabled()) {
      throw new Refusal(RowmatchConf.JOIN_ENABLED + "=false");
    }
    if (sortMerge && !conf.joinReplaceSortMerge()) {
      throw new Refusal(RowmatchConf.JOIN_REPLACE_SORT_MERGE + "=false");
    }
    // Keys, type and condition are common to the three joins (BaseJoinExec); sides and build side are not.
    BaseJoinExec join = (BaseJoinExec) plan;
    Seq<Expression> leftKeys = join.leftKeys();
    Seq<Expression> rightKeys = join.rightKeys();
    JoinType joinType = join.joinType();
    Option<Expression> condition = join.condition();
    SparkPlan left = join.left();
    SparkPlan right = join.right();
    BuildSide buildSide;
    boolean skew = false;
    boolean nullAware = false;
    if (broadcast) {
      BroadcastHashJoinExec j = (BroadcastHashJoinExec) plan;
      nullAware = j.isNullAwareAntiJoin();
      buildSide = j.buildSide();
    } else if (sortMerge) {
      SortMergeJoinExec j = (SortMergeJoinExec) plan;
      // The sorts existed only to feed the merge; nothing above relies on the join's order (checked below).
      left = unsorted(left);
      right = unsorted(right);
      buildSide = chooseBuildSide(j, joinType);
      skew = j.isSkewJoin();
    } else {
      ShuffledHashJoinExec j = (ShuffledHashJoinExec) plan;
      buildSide = j.buildSide();
      skew = j.isSkewJoin();
    }
    if (orderNeeded && !plan.outputOrdering().isEmpty()) {
      throw new Refusal("a parent relies on the join's output ordering");
    }
    JoinSpec.Kind kind = kind(joinType);
    boolean buildLeft = buildSide == BuildLeft$.MODULE$;
    if (kind == JoinSpec.Kind.EXISTENCE && buildLeft) {
      throw new Refusal("an existence join that builds its left side");
    }

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
    if (nullAware && (keys.size() != 1 || buildLeft || kind != JoinSpec.Kind.LEFT_ANTI)) {
      throw new Refusal("null-aware anti join with " + keys.size() + " keys");
    }
    int n = keys.size();
    int[] leftOrdinals = new int[n];
    int[] rightOrdinals = new int[n];
    boolean[] nullsEqual = new boolean[n];
    boolean[] nansEqual = new boolean[n];
    ComputedKeys leftComputed = new ComputedKeys("left", leftOut);
    ComputedKeys rightComputed = new ComputedKeys("right", rightOut);
    for (int i = 0; i < n; i++) {
      KeyPair k = keys.get(i);
      DataType lt = k.left.expr.dataType();
      DataType rt = k.right.expr.dataType();
      if (!lt.sameType(rt)) {
        throw new Refusal("key types differ: " + lt.simpleString() + " and " + rt.simpleString());
      }
      String why = TypeSupport.joinKeyReason(lt);
      if (why != null) {
        throw new Refusal("key " + k.left.expr.sql() + ": " + why);
      }
      boolean floating = TypeSupport.containsFloating(lt);
      if (floating && !(k.left.normalized && k.right.normalized)) {
        throw new Refusal("float key " + k.left.expr.sql() + " without NormalizeNaNAndZero");
      }
      leftOrdinals[i] = leftComputed.ordinal(k.left.expr);
      rightOrdinals[i] = rightComputed.ordinal(k.right.expr);
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
    BuildSizeEstimate.Estimate size = BuildSizeEstimate.of(plan, buildLeft ? left : right, broadcast, buildLeft);
    if (size != null && size.bytes > conf.memoryLimitBytes()) {
      throw new Refusal("build side estimated at " + size.bytes + " bytes per task (" + size.source + ") exceeds "
          + RowmatchConf.MEMORY_LIMIT + "=" + conf.memoryLimitBytes());
    }
    String name = plan.nodeName();
    ComputedKeys buildComputed = buildLeft ? leftComputed : rightComputed;
    ComputedKeys probeComputed = buildLeft ? rightComputed : leftComputed;
    JoinSpec spec = new JoinSpec(kind, buildLeft, buildLeft ? leftOrdinals : rightOrdinals,
        buildLeft ? rightOrdinals : leftOrdinals, buildComputed.bound(), probeComputed.bound(), nullAware,
        nullsEqual, nansEqual, schema(leftOut), schema(rightOut), conf.sessionTimeZone(), conf.batchSize(),
        conf.memoryLimitBytes(), "RowmatchHashJoin");
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
    if (t instanceof ExistenceJoin) {
      return JoinSpec.Kind.EXISTENCE;
    }
    throw new Refusal("join type " + t + " is not supported");
  }

  private static SparkPlan unsorted(SparkPlan child) {
    return child instanceof SortExec s && !s.global() ? s.child() : child;
  }

  /**
   * Whether the join's condition compares an int or date column of one side with one of the other ({@link JoinBand}),
   * by which a Rowmatch join of it meets only the pairs in that band.
   */
  public static boolean hasBand(SortMergeJoinExec smj) {
    return smj.condition().isDefined() && band(smj.condition().get(), smj.left().output(), smj.right().output()) != null;
  }

  /** The conjunct of an (inner, not broadcast) join's condition its band is ({@link JoinBand}), or null. */
  public static Expression band(Expression condition, Seq<Attribute> left, Seq<Attribute> right) {
    JoinBand band = JoinBand.find(condition, CollectionConverters.asJava(left), CollectionConverters.asJava(right), true);
    return band == null ? null : band.conjunct();
  }

  /** The optimizer's Join this physical join was planned from (its statistics, its sides' distinct keys), or null. */
  public static Join logicalJoin(SparkPlan join) {
    Option<LogicalPlan> link = join.logicalLink();
    return link.isDefined() && link.get() instanceof Join j ? j : null;
  }

  /**
   * For a sort-merge join we pick the side to hash: the right for left outer, the left for right outer, and for
   * inner, full outer, left semi and left anti the side the optimizer's statistics say is smaller (right on a
   * tie). A semi or anti join that hashes its left side keeps or drops each build row once the probe side is
   * read (TPC-H q4 hashed 3.8M lineitem rows to keep 57K orders rows). Not when the join is a skew join: AQE
   * splits its left side only, so hashing the right stays what it splits around.
   */
  private static BuildSide chooseBuildSide(SortMergeJoinExec j, JoinType t) {
    if (t == RightOuter$.MODULE$) {
      return BuildLeft$.MODULE$;
    }
    boolean existence = (t == LeftSemi$.MODULE$ || t == LeftAnti$.MODULE$) && !j.isSkewJoin();
    if (t instanceof InnerLike || t == FullOuter$.MODULE$ || existence) {
      Join join = logicalJoin(j);
      if (join != null) {
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

  /**
   * One side of a key: a column or an expression to compute, and whether Spark normalized its floating-point
   * values (NaN and -0.0) for the join.
   */
  private static final class KeySide {
    final Expression expr;
    final boolean normalized;

    KeySide(Expression expr, boolean normalized) {
      this.expr = expr;
      this.normalized = normalized;
    }

    /**
     * A key taken as it is, its normalization peeled when the core can do it instead: the core compares
     * floats with NaN = NaN and -0.0 = 0.0, so KnownFloatingPointNormalized(NormalizeNaNAndZero(x)) is x
     * with nansEqual. Other normalized forms (structs, arrays) are computed whole.
     */
    static KeySide plain(Expression e) {
      if (e instanceof KnownFloatingPointNormalized kn) {
        return new KeySide(kn.child() instanceof NormalizeNaNAndZero nz ? nz.child() : e, true);
      }
      return new KeySide(e, normalizedCoalesce(e));
    }

    /**
     * Spark's null-safe rewrite of a struct or array key holding floats: coalesce(normalized(x), default),
     * whose default literal (zeros) is normalized too.
     */
    private static boolean normalizedCoalesce(Expression e) {
      if (!(e instanceof Coalesce c)) {
        return false;
      }
      for (Expression x : CollectionConverters.asJava(c.children())) {
        if (!(x instanceof KnownFloatingPointNormalized) && !(x instanceof Literal)) {
          return false;
        }
      }
      return true;
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
      boolean co = false;
      boolean nul = false;
      KeySide top = KeySide.plain(e);
      Expression x = top.expr;
      boolean norm = top.normalized;
      if (x instanceof Coalesce c && c.children().size() == 2 && c.children().apply(1) instanceof Literal lit
          && lit.value() != null) {
        co = true;
        KeySide a = KeySide.plain(c.children().apply(0));
        norm |= a.normalized;
        x = a.expr;
      } else if (x instanceof IsNull in) {
        nul = true;
        x = in.child();
      }
      this.inner = x;
      this.normalized = norm;
      this.coalesce = co;
      this.isNull = nul;
    }

    KeySide side() {
      return new KeySide(inner, normalized);
    }
  }

  /**
   * Pairs Spark's null-safe rewrite back up: key i = coalesce(a, d) with key j = isnull(a) on both sides is
   * one key a with nulls equal (both null: equal; one null: the isnull keys differ; none: a = b). Keys that
   * do not pair up are compared as they are (computed when they are expressions), as Spark compares them.
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
    KeyPair[] pairs = new KeyPair[n];
    for (int i = 0; i < n; i++) {
      if (!l[i].coalesce || !r[i].coalesce) {
        continue;
      }
      for (int j = 0; j < n; j++) {
        if (!used[j] && j != i && l[j].isNull && r[j].isNull && l[j].inner.semanticEquals(l[i].inner)
            && r[j].inner.semanticEquals(r[i].inner)) {
          used[i] = true;
          used[j] = true;
          pairs[i] = new KeyPair(l[i].side(), r[i].side(), true);
          break;
        }
      }
    }
    List<KeyPair> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (pairs[i] != null) {
        out.add(pairs[i]);
      } else if (!used[i]) {
        out.add(new KeyPair(KeySide.plain(lk.get(i)), KeySide.plain(rk.get(i)), false));
      }
    }
    return out;
  }

  /**
   * The keys of one side that are expressions, computed per batch by the join (see join.JoinKeyVectors):
   * a key column is its ordinal in the child's output, a computed key {@code width + i}.
   */
  private static final class ComputedKeys {
    final String side;
    final List<Attribute> output;
    final Map<ExprId, Integer> ids;
    final List<Expression> computed = new ArrayList<>();

    ComputedKeys(String side, List<Attribute> output) {
      this.side = side;
      this.output = output;
      this.ids = ordinals(output);
    }

    int ordinal(Expression e) {
      if (e instanceof AttributeReference ref) {
        Integer o = ids.get(ref.exprId());
        if (o == null) {
          throw new Refusal(side + " key " + ref.sql() + " is not a column of the " + side + " child");
        }
        return o;
      }
      if (!e.deterministic()) {
        throw new Refusal(side + " key " + e.sql() + " is not deterministic");
      }
      if (containsSubquery(e)) {
        throw new Refusal(side + " key " + e.sql() + " holds a subquery");
      }
      for (int i = 0; i < computed.size(); i++) {
        if (computed.get(i).semanticEquals(e)) {
          return output.size() + i;
        }
      }
      String why = TypeSupport.arrowColumnReason(e.dataType());
      if (why != null) {
        throw new Refusal(side + " key " + e.sql() + ": " + why);
      }
      computed.add(e);
      return output.size() + computed.size() - 1;
    }

    Expression[] bound() {
      Expression[] out = new Expression[computed.size()];
      for (int i = 0; i < out.length; i++) {
        try {
          out[i] = KeyBinding.bind(computed.get(i), output);
        } catch (RuntimeException e) {
          throw new Refusal(side + " key " + computed.get(i).sql() + " reads a column its side does not have");
        }
      }
      return out;
    }
  }

  /** Join inputs travel as Arrow batches: every column must convert to Arrow and back exactly. */
  private static void checkColumns(String side, List<Attribute> columns) {
    for (Attribute a : columns) {
      String why = TypeSupport.joinColumnReason(a.dataType());
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
