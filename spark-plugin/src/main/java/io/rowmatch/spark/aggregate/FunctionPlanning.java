package io.rowmatch.spark.aggregate;

import org.apache.spark.QueryContext;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;

/**
 * What a {@link SupportedFunction} plans one aggregate function with: its place in the aggregate (mode,
 * buffer columns of a merge), Spark's buffer and result fields, input resolution, and the way to refuse.
 */
final class FunctionPlanning {
  /** The function as SQL, for reasons and error messages. */
  final String sql;
  /** PartialMerge/Final: the inputs are Spark's buffer columns ({@link #mergeInputs}), not raw values. */
  final boolean merge;
  /** The child ordinals of the function's buffer columns (meaningful in merge mode). */
  final int[] mergeInputs;
  /** Spark's aggBufferAttributes of the function, as fields. */
  final StructField[] bufferFields;
  final StructField resultField;
  private final AggregatePlanner.Inputs inputs;

  FunctionPlanning(String sql, boolean merge, int[] mergeInputs, StructField[] bufferFields,
      StructField resultField, AggregatePlanner.Inputs inputs) {
    this.sql = sql;
    this.merge = merge;
    this.mergeInputs = mergeInputs;
    this.bufferFields = bufferFields;
    this.resultField = resultField;
    this.inputs = inputs;
  }

  /** The refusal to throw: {@code throw p.refuse("why")}; the aggregate stays vanilla with that reason. */
  RuntimeException refuse(String reason) {
    return new AggregatePlanner.Refusal(reason);
  }

  /** Refuses unless Spark's buffer schema is exactly these types. */
  void expectBuffers(DataType... types) {
    if (bufferFields.length != types.length) {
      throw refuse("unexpected buffer schema for " + sql);
    }
    for (int i = 0; i < types.length; i++) {
      if (!bufferFields[i].dataType().sameType(types[i])) {
        throw refuse("unexpected buffer type " + bufferFields[i].dataType().simpleString() + " for " + sql);
      }
    }
  }

  /**
   * The child ordinal of a raw input: a column, or a deterministic expression computed by Spark's projection
   * below (only for functions that, as Spark does, evaluate their input on every row).
   */
  int input(Expression e) {
    return inputs.of(e, sql);
  }

  /** The child ordinal of a raw input that must be a column of the child (no computed input). */
  int column(Expression e) {
    return AggregatePlanner.inputOrdinal(e, inputs.columns, sql);
  }

  /** The buffer columns in merge mode, else the one raw input {@code child} (see {@link #input}). */
  int[] inputs(Expression child) {
    return merge ? mergeInputs : new int[] {input(child)};
  }

  FunctionSpec spec(FunctionKernel kernel, int[] inputOrdinals, boolean ansi, boolean ignoreNulls) {
    return spec(kernel, inputOrdinals, ansi, ignoreNulls, null);
  }

  FunctionSpec spec(FunctionKernel kernel, int[] inputOrdinals, boolean ansi, boolean ignoreNulls,
      QueryContext errorContext) {
    return new FunctionSpec(kernel, inputOrdinals, merge, ansi, ignoreNulls, bufferFields, resultField, sql,
        errorContext);
  }
}
