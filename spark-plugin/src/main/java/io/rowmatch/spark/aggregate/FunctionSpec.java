package io.rowmatch.spark.aggregate;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.QueryContext;
import org.apache.spark.sql.types.StructField;

import io.rowmatch.spark.arrow.ArrowSchemas;
import io.rowmatch.spark.rules.CanonicalForms;

/**
 * One aggregate function of a RowmatchHashAggregate, resolved at planning time into what the executor
 * needs: which kernel, which input columns (raw values for Partial/Complete, Spark's buffer columns for
 * PartialMerge/Final), and the Spark types of its buffer and result columns. Equal by value (see
 * AggregateSpec).
 */
public final class FunctionSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Which kernel runs the function (an enum constant of its SupportedFunction), and its pass-through. */
  final FunctionKernel kernel;
  /** Raw mode: the function's input columns. Merge mode: its buffer columns, in buffer order. */
  final int[] inputOrdinals;
  final boolean merge;
  /** ANSI sum: overflow raises Spark's ARITHMETIC_OVERFLOW; otherwise it wraps (LEGACY). */
  final boolean ansi;
  final boolean ignoreNulls;
  final StructField[] bufferFields;
  final StructField resultField;
  final String description;
  /** Where the function appears in the query, for Spark's own error messages (may be null). */
  final QueryContext errorContext;

  public FunctionSpec(FunctionKernel kernel, int[] inputOrdinals, boolean merge, boolean ansi, boolean ignoreNulls,
      StructField[] bufferFields, StructField resultField, String description) {
    this(kernel, inputOrdinals, merge, ansi, ignoreNulls, bufferFields, resultField, description, null);
  }

  public FunctionSpec(FunctionKernel kernel, int[] inputOrdinals, boolean merge, boolean ansi, boolean ignoreNulls,
      StructField[] bufferFields, StructField resultField, String description, QueryContext errorContext) {
    this.errorContext = errorContext;
    this.kernel = kernel;
    this.inputOrdinals = inputOrdinals.clone();
    this.merge = merge;
    this.ansi = ansi;
    this.ignoreNulls = ignoreNulls;
    this.bufferFields = bufferFields.clone();
    this.resultField = resultField;
    this.description = description;
  }

  public FunctionKernel kernel() {
    return kernel;
  }

  static FieldVector newVector(StructField f, String timeZone, BufferAllocator allocator) {
    return ArrowSchemas.toArrow(f.name(), f.dataType(), f.nullable(), timeZone).createVector(allocator);
  }

  public AggregateKernel newKernel(BufferAllocator allocator, String timeZone) {
    return kernel.newKernel(this, allocator, timeZone);
  }

  /**
   * For a canonical plan: column names, the description (it names attributes with their exprIds) and the
   * error context (where in the query text the function appears) dropped; what the kernel computes stays.
   */
  FunctionSpec canonicalized() {
    StructField[] buffers = new StructField[bufferFields.length];
    for (int i = 0; i < buffers.length; i++) {
      buffers[i] = CanonicalForms.withoutName(bufferFields[i]);
    }
    return new FunctionSpec(kernel, inputOrdinals, merge, ansi, ignoreNulls, buffers,
        CanonicalForms.withoutName(resultField), "", null);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof FunctionSpec other)) {
      return false;
    }
    return kernel == other.kernel && Arrays.equals(inputOrdinals, other.inputOrdinals) && merge == other.merge
        && ansi == other.ansi && ignoreNulls == other.ignoreNulls && Arrays.equals(bufferFields, other.bufferFields)
        && Objects.equals(resultField, other.resultField) && Objects.equals(description, other.description)
        && Objects.equals(errorContext, other.errorContext);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kernel, Arrays.hashCode(inputOrdinals), merge, ansi, ignoreNulls,
        Arrays.hashCode(bufferFields), resultField);
  }

  @Override
  public String toString() {
    return description;
  }
}
