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

  public enum Kind { COUNT, SUM_LONG, SUM_DOUBLE, SUM_DECIMAL, AVG_DOUBLE, AVG_DECIMAL, MIN_LONG, MAX_LONG, MIN_DOUBLE, MAX_DOUBLE,
    MIN_DECIMAL128, MAX_DECIMAL128, MIN_BYTES, MAX_BYTES, FIRST, LAST }

  final Kind kind;
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

  public FunctionSpec(Kind kind, int[] inputOrdinals, boolean merge, boolean ansi, boolean ignoreNulls,
      StructField[] bufferFields, StructField resultField, String description) {
    this(kind, inputOrdinals, merge, ansi, ignoreNulls, bufferFields, resultField, description, null);
  }

  public FunctionSpec(Kind kind, int[] inputOrdinals, boolean merge, boolean ansi, boolean ignoreNulls,
      StructField[] bufferFields, StructField resultField, String description, QueryContext errorContext) {
    this.errorContext = errorContext;
    this.kind = kind;
    this.inputOrdinals = inputOrdinals.clone();
    this.merge = merge;
    this.ansi = ansi;
    this.ignoreNulls = ignoreNulls;
    this.bufferFields = bufferFields.clone();
    this.resultField = resultField;
    this.description = description;
  }

  public Kind kind() {
    return kind;
  }

  static FieldVector newVector(StructField f, String timeZone, BufferAllocator allocator) {
    return ArrowSchemas.toArrow(f.name(), f.dataType(), f.nullable(), timeZone).createVector(allocator);
  }

  public AggregateKernel newKernel(BufferAllocator allocator, String timeZone) {
    switch (kind) {
      case COUNT:
        return new CountKernel(this, allocator, timeZone);
      case SUM_LONG:
        return new SumLongKernel(this, allocator, timeZone);
      case SUM_DOUBLE:
        return new SumDoubleKernel(this, allocator, timeZone);
      case SUM_DECIMAL:
        return new SumDecimalKernel(this, allocator, timeZone);
      case AVG_DECIMAL:
        return new AvgDecimalKernel(this, allocator, timeZone);
      case AVG_DOUBLE:
        return new AvgDoubleKernel(this, allocator, timeZone);
      case MIN_LONG:
      case MAX_LONG:
        return new MinMaxLongKernel(this, allocator, timeZone, kind == Kind.MAX_LONG);
      case MIN_DOUBLE:
      case MAX_DOUBLE:
        return new MinMaxDoubleKernel(this, allocator, timeZone, kind == Kind.MAX_DOUBLE);
      case MIN_DECIMAL128:
      case MAX_DECIMAL128:
        return new MinMaxDecimal128Kernel(this, allocator, timeZone, kind == Kind.MAX_DECIMAL128);
      case MIN_BYTES:
      case MAX_BYTES:
        return new MinMaxBytesKernel(this, allocator, timeZone, kind == Kind.MAX_BYTES);
      case FIRST:
        return new FirstKernel(this, allocator, timeZone);
      case LAST:
        return new LastKernel(this, allocator, timeZone);
      default:
        throw new IllegalStateException("no kernel for " + kind);
    }
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
    return new FunctionSpec(kind, inputOrdinals, merge, ansi, ignoreNulls, buffers,
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
    return kind == other.kind && Arrays.equals(inputOrdinals, other.inputOrdinals) && merge == other.merge
        && ansi == other.ansi && ignoreNulls == other.ignoreNulls && Arrays.equals(bufferFields, other.bufferFields)
        && Objects.equals(resultField, other.resultField) && Objects.equals(description, other.description)
        && Objects.equals(errorContext, other.errorContext);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, Arrays.hashCode(inputOrdinals), merge, ansi, ignoreNulls,
        Arrays.hashCode(bufferFields), resultField);
  }

  @Override
  public String toString() {
    return description;
  }
}
