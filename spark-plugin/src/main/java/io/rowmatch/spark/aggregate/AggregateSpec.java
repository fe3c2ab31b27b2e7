package io.rowmatch.spark.aggregate;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.types.StructType;

import io.rowmatch.spark.rules.CanonicalForms;

/**
 * Everything an executor needs to run one RowmatchHashAggregate, decided on the driver by the planner:
 * key columns (by child ordinal), the functions, and how the output is formed from the "intermediate"
 * columns (keys, then each function's buffers or result). The output is either a pick of intermediate
 * columns (the common case: plain attributes and aliases of them) or a projection, evaluated by the columnar
 * expression kernels when they support it ({@link #projectionRowReason}) and by Spark's UnsafeProjection
 * otherwise.
 *
 * <p>Equality is by value over every field, so a plan node holding a spec compares as Spark's case classes
 * do; {@link #canonicalized()} is the form its node's canonical plan holds (see CanonicalForms).
 */
public final class AggregateSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  public final int[] keyOrdinals;
  /** Float/double keys under Spark's NormalizeNaNAndZero: output NaN canonical and -0.0 as 0.0. */
  public final boolean[] keyNormalize;
  public final List<FunctionSpec> functions;
  /** True: intermediate holds function results (Final/Complete); false: buffers (Partial/PartialMerge). */
  public final boolean finalResults;
  /** Output column i = intermediate column outputPick[i]; null when a projection is needed. */
  public final int[] outputPick;
  public final List<NamedExpression> projection;
  public final List<Attribute> intermediateAttributes;
  public final StructType outputSchema;
  public final String timeZone;
  public final int batchSize;
  public final long memoryLimit;
  public final String operatorName;
  /**
   * A partial aggregate that may stop aggregating when its input reduces too little (see PartialSkipProbe):
   * rows before the first decision, or 0 when it never skips (a merging or final stage, no keys, or a
   * function without a pass-through buffer).
   */
  public final long skipPartialMinRows;
  public final double skipPartialRatio;

  /** The projection as Scala sequences (expressions, then the intermediate attributes they read). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  scala.collection.immutable.Seq<org.apache.spark.sql.catalyst.expressions.Expression> projectionSeq() {
    return scala.jdk.javaapi.CollectionConverters.asScala(
        (List<org.apache.spark.sql.catalyst.expressions.Expression>) (List) projection).toList();
  }

  scala.collection.immutable.Seq<Attribute> intermediateSeq() {
    return scala.jdk.javaapi.CollectionConverters.asScala(intermediateAttributes).toList();
  }

  /**
   * Why the output projection is evaluated by Spark's row projection instead of the columnar kernels, or null
   * when the kernels evaluate it (or there is none: the output is a pick).
   */
  public String projectionRowReason() {
    if (!rowReasonKnown) { // computed once: EXPLAIN strings ask at every AQE plan update
      rowReason = outputPick != null ? null
          : io.rowmatch.spark.expression.ColumnarExpressions.unsupported(projectionSeq(), intermediateSeq());
      rowReasonKnown = true;
    }
    return rowReason;
  }

  private transient String rowReason;
  private transient boolean rowReasonKnown;

  public AggregateSpec(int[] keyOrdinals, boolean[] keyNormalize, List<FunctionSpec> functions,
      boolean finalResults, int[] outputPick, List<NamedExpression> projection,
      List<Attribute> intermediateAttributes, StructType outputSchema, String timeZone, int batchSize,
      long memoryLimit, String operatorName, long skipPartialMinRows, double skipPartialRatio) {
    this.keyOrdinals = keyOrdinals;
    this.keyNormalize = keyNormalize;
    this.functions = functions;
    this.finalResults = finalResults;
    this.outputPick = outputPick;
    this.projection = projection;
    this.intermediateAttributes = intermediateAttributes;
    this.outputSchema = outputSchema;
    this.timeZone = timeZone;
    this.batchSize = batchSize;
    this.memoryLimit = memoryLimit;
    this.operatorName = operatorName;
    this.skipPartialMinRows = skipPartialMinRows;
    this.skipPartialRatio = skipPartialRatio;
  }

  public boolean keyless() {
    return keyOrdinals.length == 0;
  }

  /**
   * This spec as its node's canonical plan holds it: the attributes it carries (intermediate columns, the
   * output projection) normalized as Spark normalizes a node's expressions, output names and the
   * functions' diagnostic text dropped. Everything the executor computes with stays: key ordinals and
   * normalization, functions, modes, the output pick, types and the settings captured at planning.
   */
  public AggregateSpec canonicalized() {
    List<FunctionSpec> fs = new ArrayList<>(functions.size());
    for (FunctionSpec f : functions) {
      fs.add(f.canonicalized());
    }
    return new AggregateSpec(keyOrdinals, keyNormalize, fs, finalResults, outputPick,
        projection == null ? null : CanonicalForms.outputs(projection, intermediateAttributes),
        CanonicalForms.normalizeAll(intermediateAttributes, intermediateAttributes),
        CanonicalForms.withoutNames(outputSchema), timeZone, batchSize, memoryLimit, operatorName,
        skipPartialMinRows, skipPartialRatio);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof AggregateSpec other)) {
      return false;
    }
    return Arrays.equals(keyOrdinals, other.keyOrdinals) && Arrays.equals(keyNormalize, other.keyNormalize)
        && functions.equals(other.functions) && finalResults == other.finalResults
        && Arrays.equals(outputPick, other.outputPick) && Objects.equals(projection, other.projection)
        && intermediateAttributes.equals(other.intermediateAttributes) && outputSchema.equals(other.outputSchema)
        && Objects.equals(timeZone, other.timeZone) && batchSize == other.batchSize
        && memoryLimit == other.memoryLimit && operatorName.equals(other.operatorName)
        && skipPartialMinRows == other.skipPartialMinRows
        && Double.compare(skipPartialRatio, other.skipPartialRatio) == 0;
  }

  @Override
  public int hashCode() {
    return Objects.hash(Arrays.hashCode(keyOrdinals), Arrays.hashCode(keyNormalize), functions, finalResults,
        Arrays.hashCode(outputPick), projection, intermediateAttributes, outputSchema, batchSize);
  }
}
