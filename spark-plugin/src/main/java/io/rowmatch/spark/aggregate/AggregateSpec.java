package io.rowmatch.spark.aggregate;

import java.io.Serializable;
import java.util.List;

import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.types.StructType;

/**
 * Everything an executor needs to run one RowmatchHashAggregate, decided on the driver by the planner:
 * key columns (by child ordinal), the functions, and how the output is formed from the "intermediate"
 * columns (keys, then each function's buffers or result). The output is either a pick of intermediate
 * columns (the common case: plain attributes and aliases of them) or a projection evaluated with Spark's
 * UnsafeProjection.
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
}
