package io.rowmatch.spark.aggregate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.KnownFloatingPointNormalized;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateMode;
import org.apache.spark.sql.catalyst.expressions.aggregate.Complete$;
import org.apache.spark.sql.catalyst.expressions.aggregate.Final$;
import org.apache.spark.sql.catalyst.expressions.aggregate.First;
import org.apache.spark.sql.catalyst.expressions.aggregate.Partial$;
import org.apache.spark.sql.catalyst.expressions.aggregate.PartialMerge$;
import org.apache.spark.sql.catalyst.optimizer.NormalizeNaNAndZero;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec;
import org.apache.spark.sql.execution.aggregate.SortAggregateExec;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.LongType$;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.config.RowmatchConf;
import io.rowmatch.spark.rules.FallbackReasons;
import io.rowmatch.spark.types.TypeSupport;

/**
 * Decides whether a Spark aggregate node can run as a RowmatchHashAggregate, and if so resolves it into
 * an {@link AggregateSpec}; otherwise gives the reason. Anything not implemented exactly as Spark does it
 * is refused here, so the node stays vanilla rather than risk a different answer.
 */
public final class AggregatePlanner {
  private AggregatePlanner() {}

  /** Either a spec or the reason there is none. */
  public static final class Decision {
    public final AggregateSpec spec;
    public final String reason;
    /** Aggregate inputs to compute below the aggregate (appended after the child's columns); may be empty. */
    public final List<NamedExpression> computedInputs;

    private Decision(AggregateSpec spec, String reason, List<NamedExpression> computedInputs) {
      this.spec = spec;
      this.reason = reason;
      this.computedInputs = computedInputs;
    }

    static Decision refuse(String reason) {
      return new Decision(null, reason, List.of());
    }
  }

  /**
   * The RowmatchHashAggregate standing for this Spark aggregate (the sort a sort aggregate needed removed,
   * computed inputs projected below), or null when {@code plan} is not an aggregate Rowmatch runs (the
   * reason is recorded on it). {@code orderNeeded}: some ancestor relies on this subtree's output order.
   */
  public static SparkPlan replace(SparkPlan plan, boolean orderNeeded, RowmatchConf conf) {
    if (!(plan instanceof BaseAggregateExec agg) || plan instanceof RowmatchHashAggregateExec) {
      return null;
    }
    boolean sortAggregate = plan instanceof SortAggregateExec;
    if (sortAggregate && orderNeeded) {
      FallbackReasons.record(plan, "a parent relies on the sort aggregate's output ordering", conf);
      return null;
    }
    Decision d = plan(agg, conf);
    if (d.reason != null) {
      FallbackReasons.record(plan, d.reason, conf);
      return null;
    }
    SparkPlan child = agg.child();
    if (sortAggregate && child instanceof SortExec sort && !sort.global()) {
      child = sort.child(); // the sort existed only to feed the sort aggregate
    }
    scala.collection.immutable.Seq<AggregateExpression> functions = agg.aggregateExpressions();
    if (!d.computedInputs.isEmpty()) {
      child = PreProjection.project(child, d.computedInputs);
      functions = PreProjection.readComputed(functions, d.computedInputs);
    }
    RowmatchHashAggregateExec replaced = new RowmatchHashAggregateExec(
        agg.requiredChildDistributionExpressions(), agg.isStreaming(), agg.numShufflePartitions(),
        agg.groupingExpressions(), functions, agg.aggregateAttributes(),
        agg.initialInputBufferOffset(), agg.resultExpressions(), child, d.spec, plan.nodeName());
    replaced.copyTagsFrom(plan);
    return replaced;
  }

  /** Thrown inside the planner to refuse with a reason. */
  static final class Refusal extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refusal(String reason) {
      super(reason, null, false, false);
    }
  }

  public static boolean isDedup(BaseAggregateExec agg) {
    for (AggregateExpression e : CollectionConverters.asJava(agg.aggregateExpressions())) {
      if (!(e.aggregateFunction() instanceof First)) {
        return false;
      }
    }
    return true;
  }

  public static Decision plan(BaseAggregateExec agg, RowmatchConf conf) {
    try {
      List<NamedExpression> computed = new ArrayList<>();
      AggregateSpec spec = build(agg, conf, computed);
      return new Decision(spec, null, computed);
    } catch (Refusal r) {
      return Decision.refuse(r.getMessage());
    }
  }

  private static AggregateSpec build(BaseAggregateExec agg, RowmatchConf conf, List<NamedExpression> computed) {
    if (agg.isStreaming()) {
      throw new Refusal("streaming aggregation is not supported");
    }
    boolean dedup = isDedup(agg);
    if (dedup && !conf.dedupEnabled()) {
      throw new Refusal(RowmatchConf.DEDUP_ENABLED + "=false");
    }
    if (!dedup && !conf.aggregateEnabled()) {
      throw new Refusal(RowmatchConf.AGGREGATE_ENABLED + "=false");
    }
    SparkPlan child = agg.child();
    List<Attribute> childOutput = CollectionConverters.asJava(child.output());
    for (Attribute a : childOutput) {
      String why = TypeSupport.arrowColumnReason(a.dataType());
      if (why != null) {
        throw new Refusal("input column " + a.name() + ": " + why);
      }
    }
    List<AggregateExpression> aggs = CollectionConverters.asJava(agg.aggregateExpressions());
    AggregateMode mode = null;
    for (AggregateExpression e : aggs) {
      if (mode == null) {
        mode = e.mode();
      } else if (!mode.equals(e.mode())) {
        // Spark's one-distinct plan (AggUtils.planAggregateWithOneDistinct) merges the other functions'
        // buffers (PartialMerge) while starting the distinct ones (Partial) in one stage: each function runs in
        // its own mode, and the stage outputs every function's buffers. No other mix is planned by Spark.
        if (!partialMergeAndPartial(mode, e.mode())) {
          throw new Refusal("mixed aggregate modes (" + mode + " and " + e.mode() + ")");
        }
        mode = PartialMerge$.MODULE$;
      }
    }
    boolean merge = mode != null && (mode.equals(PartialMerge$.MODULE$) || mode.equals(Final$.MODULE$));
    boolean finalResults = mode == null || mode.equals(Final$.MODULE$) || mode.equals(Complete$.MODULE$);
    if (mode != null && mode.equals(Complete$.MODULE$)) {
      for (AggregateExpression e : aggs) {
        if (e.isDistinct()) {
          throw new Refusal("DISTINCT aggregate in Complete mode: " + e.sql());
        }
      }
    }

    // Merge-mode buffers are the last columns of the child, positionally (as Spark's inputAttributes).
    int mergeBufferColumns = 0;
    if (merge) {
      for (AggregateExpression e : aggs) {
        if (merges(e)) {
          mergeBufferColumns += e.aggregateFunction().inputAggBufferAttributes().size();
        }
      }
    }
    int mergeStart = childOutput.size() - mergeBufferColumns;
    if (mergeStart < 0) {
      throw new Refusal("child has fewer columns than the aggregate buffers");
    }
    Map<ExprId, Integer> ordinals = new HashMap<>();
    for (int i = 0; i < (merge ? mergeStart : childOutput.size()); i++) {
      ordinals.putIfAbsent(childOutput.get(i).exprId(), i);
    }

    // Keys: columns of the child, or expressions computed below the aggregate (as computed inputs are).
    Inputs inputs = new Inputs(ordinals, childOutput.size(), computed);
    // A plain float key is only trusted where its values were already normalized below: a merging
    // stage (its keys come from a partial aggregate that applied NormalizeNaNAndZero).
    boolean mergingStage = merge || (mode == null && agg.requiredChildDistributionExpressions().isDefined());
    List<NamedExpression> grouping = CollectionConverters.asJava(agg.groupingExpressions());
    int[] keyOrdinals = new int[grouping.size()];
    boolean[] keyNormalize = new boolean[grouping.size()];
    for (int k = 0; k < grouping.size(); k++) {
      Expression e = (Expression) (Object) grouping.get(k);
      if (e instanceof Alias a) {
        e = a.child();
      }
      boolean normalized = false;
      if (e instanceof KnownFloatingPointNormalized kn && kn.child() instanceof NormalizeNaNAndZero nz
          && nz.child() instanceof AttributeReference) {
        e = nz.child(); // a plain float column: normalized while emitting the keys, no projection needed
        normalized = true;
      }
      DataType t = e.dataType();
      String why = TypeSupport.groupKeyReason(t);
      if (why != null) {
        throw new Refusal("group key " + e.sql() + ": " + why);
      }
      if (e instanceof AttributeReference ref) {
        Integer ordinal = ordinals.get(ref.exprId());
        if (ordinal == null) {
          throw new Refusal("group key " + ref.sql() + " is not a column of the child");
        }
        if (TypeSupport.containsFloating(t) && !normalized && !mergingStage) {
          throw new Refusal("float group key " + ref.sql() + " without NormalizeNaNAndZero");
        }
        keyOrdinals[k] = ordinal;
        keyNormalize[k] = normalized;
        continue;
      }
      // Spark evaluates grouping expressions on every input row, so computing them in a projection below
      // gives the same values and raises the same errors. Floating values inside must come normalized.
      if (!e.deterministic()) {
        throw new Refusal("group key " + e.sql() + " is not deterministic");
      }
      if (TypeSupport.containsFloating(t) && !(e instanceof KnownFloatingPointNormalized) && !mergingStage) {
        throw new Refusal("float group key " + e.sql() + " without NormalizeNaNAndZero");
      }
      keyOrdinals[k] = inputs.of(e, "group key " + e.sql());
      keyNormalize[k] = false;
    }

    // Functions.
    List<FunctionSpec> functions = new ArrayList<>();
    int nextBuffer = mergeStart;
    for (AggregateExpression e : aggs) {
      AggregateFunction f = e.aggregateFunction();
      int bufferCount = f.inputAggBufferAttributes().size();
      int[] mergeInputs = new int[bufferCount];
      for (int b = 0; b < bufferCount; b++) {
        mergeInputs[b] = nextBuffer + b;
      }
      boolean mergesBuffers = merges(e);
      if (mergesBuffers) {
        nextBuffer += bufferCount;
      }
      // Spark applies FILTER only where raw rows are read (Partial, Complete); merging stages ignore it.
      if (e.filter().isDefined() && !mergesBuffers) {
        f = filteredAsNullInput(e);
      }
      functions.add(function(e, f, mergesBuffers, mergeInputs, inputs, childOutput));
    }

    // Output.
    List<Attribute> intermediate = new ArrayList<>();
    for (NamedExpression g : grouping) {
      intermediate.add(g.toAttribute());
    }
    for (AggregateExpression e : aggs) {
      if (finalResults) {
        continue;
      }
      intermediate.addAll(CollectionConverters.asJava(e.aggregateFunction().aggBufferAttributes()));
    }
    if (finalResults) {
      intermediate.addAll(CollectionConverters.asJava(agg.aggregateAttributes()));
    }
    List<NamedExpression> result = CollectionConverters.asJava(agg.resultExpressions());
    int[] pick;
    if (!finalResults) {
      // Spark outputs groupingAttributes ++ buffers for Partial/PartialMerge, whatever resultExpressions say.
      if (result.size() != intermediate.size()) {
        throw new Refusal("partial aggregate output does not match its buffers");
      }
      pick = new int[intermediate.size()];
      for (int i = 0; i < pick.length; i++) {
        pick[i] = i;
      }
    } else {
      pick = pickOutput(result, intermediate);
      if (pick == null) {
        for (NamedExpression r : result) {
          Expression re = (Expression) (Object) r;
          if (!re.deterministic()) {
            throw new Refusal("non-deterministic result expression " + re.sql());
          }
        }
      }
    }
    List<StructField> outFields = new ArrayList<>();
    for (NamedExpression r : result) {
      Attribute a = r.toAttribute();
      String why = TypeSupport.arrowColumnReason(a.dataType());
      if (why != null) {
        throw new Refusal("output column " + a.name() + ": " + why);
      }
      outFields.add(new StructField(a.name(), a.dataType(), a.nullable(),
          org.apache.spark.sql.types.Metadata.empty()));
    }
    StructType outputSchema = new StructType(outFields.toArray(new StructField[0]));
    // A partial stage (raw rows in, buffers out to a later merge) may pass rows through unaggregated. A
    // keyless aggregate has one group, so nothing to skip; no functions means distinct's partial half.
    boolean partialStage = mode == null ? !agg.requiredChildDistributionExpressions().isDefined()
        : mode.equals(Partial$.MODULE$);
    boolean mayPassThrough = conf.skipPartialEnabled() && partialStage && !grouping.isEmpty() && pick != null;
    for (FunctionSpec f : functions) {
      mayPassThrough &= PartialPassThrough.supports(f);
    }
    return new AggregateSpec(keyOrdinals, keyNormalize, functions, finalResults, pick,
        pick == null ? new ArrayList<>(result) : null, new ArrayList<>(intermediate), outputSchema,
        conf.sessionTimeZone(), conf.batchSize(), conf.memoryLimitBytes(), "RowmatchHashAggregate",
        mayPassThrough ? conf.skipPartialMinRows() : 0, conf.skipPartialRatio());
  }

  /**
   * {@code f(x) FILTER (WHERE c)} as {@code f(IF(c, x, NULL))}: exact for a function that skips null inputs,
   * since a row the filter rejects (c false or null) then leaves the buffer as Spark's filter would. Only over
   * inputs that are columns or literals: whether Spark evaluates a computed input on the rows its filter rejects
   * depends on its generated code (sum's input, used twice in its update, is evaluated before the filter by
   * subexpression elimination; max's is not), so a computed input could raise an ANSI error where Spark does not,
   * or miss one it raises. Count masks its first input: one null input stops the count.
   */
  private static AggregateFunction filteredAsNullInput(AggregateExpression e) {
    AggregateFunction f = e.aggregateFunction();
    SupportedFunction supported = AggregateFunctions.of(f);
    if (supported == null || !supported.skipsNullInput(f) || f.children().isEmpty()) {
      throw new Refusal("aggregate FILTER clause in " + e.sql() + " (taken only by functions that skip null"
          + " inputs)");
    }
    List<Expression> children = new ArrayList<>(CollectionConverters.asJava(f.children()));
    for (Expression child : children) {
      if (!(child instanceof AttributeReference) && !(child instanceof Literal)) {
        throw new Refusal("aggregate FILTER clause over the computed input " + child.sql() + " in " + e.sql()
            + " (Spark may or may not evaluate it where the filter fails)");
      }
    }
    Expression x = children.get(0);
    children.set(0, new If(e.filter().get(), x, Literal.create(null, x.dataType())));
    return (AggregateFunction) f.withNewChildren(CollectionConverters.asScala(children).toSeq());
  }

  /** Whether the function reads Spark's buffer columns (PartialMerge, Final) rather than raw input rows. */
  private static boolean merges(AggregateExpression e) {
    return e.mode().equals(PartialMerge$.MODULE$) || e.mode().equals(Final$.MODULE$);
  }

  private static boolean partialMergeAndPartial(AggregateMode a, AggregateMode b) {
    return (a.equals(PartialMerge$.MODULE$) && b.equals(Partial$.MODULE$))
        || (a.equals(Partial$.MODULE$) && b.equals(PartialMerge$.MODULE$));
  }

  /** Output as a pick of intermediate columns when every result is a column or an alias of one. */
  private static int[] pickOutput(List<NamedExpression> result, List<Attribute> intermediate) {
    int[] pick = new int[result.size()];
    for (int i = 0; i < pick.length; i++) {
      Expression e = (Expression) (Object) result.get(i);
      if (e instanceof Alias a) {
        e = a.child();
      }
      if (!(e instanceof Attribute attr)) {
        return null;
      }
      int found = -1;
      for (int j = 0; j < intermediate.size(); j++) {
        if (intermediate.get(j).exprId().equals(attr.exprId())) {
          found = j;
          break;
        }
      }
      if (found < 0) {
        return null;
      }
      pick[i] = found;
    }
    return pick;
  }

  static boolean integral(DataType t) {
    return t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType || t instanceof LongType;
  }

  static boolean floating(DataType t) {
    return t instanceof FloatType || t instanceof DoubleType;
  }

  private static StructField field(Attribute a) {
    return new StructField(a.name(), a.dataType(), a.nullable(), org.apache.spark.sql.types.Metadata.empty());
  }

  private static FunctionSpec function(AggregateExpression e, AggregateFunction f, boolean merge,
      int[] mergeInputs, Inputs ordinals, List<Attribute> childOutput) {
    List<AttributeReference> buffers = CollectionConverters.asJava(f.aggBufferAttributes());
    StructField[] bufferFields = new StructField[buffers.size()];
    for (int i = 0; i < bufferFields.length; i++) {
      bufferFields[i] = field(buffers.get(i));
    }
    StructField resultField = new StructField("result", f.dataType(), f.nullable(),
        org.apache.spark.sql.types.Metadata.empty());
    String sql = e.sql();
    if (merge) {
      for (int b = 0; b < mergeInputs.length; b++) {
        DataType have = childOutput.get(mergeInputs[b]).dataType();
        if (!have.sameType(bufferFields[b].dataType())) {
          throw new Refusal("buffer column " + b + " of " + sql + " has type " + have.simpleString()
              + ", expected " + bufferFields[b].dataType().simpleString());
        }
      }
    }
    SupportedFunction supported = AggregateFunctions.of(f);
    if (supported == null) {
      throw new Refusal("aggregate function " + f.prettyName() + " is not supported: " + sql);
    }
    return supported.plan(f, new FunctionPlanning(sql, merge, mergeInputs, bufferFields, resultField, ordinals));
  }

  /**
   * Resolves function inputs to child ordinals. A deterministic expression input becomes a column computed
   * by Spark's ProjectExec below the aggregate (see PreProjection), only for group keys and functions
   * that evaluate their input on every row as Spark does (count, sum, avg, min, max, last), so errors
   * raised by the expression (ANSI arithmetic) are raised for the same rows.
   */
  static final class Inputs {
    final Map<ExprId, Integer> columns;
    final int childWidth;
    final List<NamedExpression> computed;

    Inputs(Map<ExprId, Integer> columns, int childWidth, List<NamedExpression> computed) {
      this.columns = columns;
      this.childWidth = childWidth;
      this.computed = computed;
    }

    int of(Expression e, String sql) {
      if (e instanceof AttributeReference) {
        return inputOrdinal(e, columns, sql);
      }
      if (!e.deterministic()) {
        throw new Refusal("aggregate input " + e.sql() + " is not deterministic: " + sql);
      }
      String why = TypeSupport.arrowColumnReason(e.dataType());
      if (why != null) {
        throw new Refusal("aggregate input " + e.sql() + ": " + why);
      }
      for (int i = 0; i < computed.size(); i++) {
        if (((Alias) (Object) computed.get(i)).child().semanticEquals(e)) {
          return childWidth + i;
        }
      }
      computed.add(io.rowmatch.spark.aggregate.PreProjection.alias(e, "_rowmatch_input_" + computed.size()));
      return childWidth + computed.size() - 1;
    }
  }

  static int inputOrdinal(Expression e, Map<ExprId, Integer> ordinals, String sql) {
    if (!(e instanceof AttributeReference ref)) {
      throw new Refusal("aggregate input " + e.sql() + " is an expression, not a column: " + sql);
    }
    Integer o = ordinals.get(ref.exprId());
    if (o == null) {
      throw new Refusal("aggregate input " + ref.sql() + " is not a column of the child: " + sql);
    }
    return o;
  }
}
