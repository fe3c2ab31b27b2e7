package io.rowmatch.spark.join;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.StructType;

import io.rowmatch.spark.rules.CanonicalForms;

/**
 * A planned RowmatchHashJoin, resolved to column ordinals and flags so executors never look at Catalyst
 * keys again. "Build" is the side Spark chose to hash (or ours for a replaced sort-merge join), "probe" the
 * streamed side. Output columns are Spark's: left then right, left only for semi/anti joins, left then the
 * boolean "exists" for an existence join; or a subset of those when the plan above reads only some
 * ({@link #outputColumns}).
 */
public final class JoinSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * EXISTENCE is Spark's ExistenceJoin (EXISTS/IN under OR or CASE): every left (probe) row once, followed by a
   * non-null boolean "exists": whether some build row matches its keys and passes the condition.
   */
  public enum Kind { INNER, LEFT_OUTER, RIGHT_OUTER, FULL_OUTER, LEFT_SEMI, LEFT_ANTI, EXISTENCE }

  public final Kind kind;
  public final boolean buildLeft;
  /**
   * Per key, pairwise: its ordinal in the build child's output and in the probe child's output; an ordinal
   * at or past the side's width is a computed key, {@code buildComputed[ordinal - width]} (resp. probe).
   */
  public final int[] buildKeys;
  public final int[] probeKeys;
  /** Computed keys of each side, bound to that side's columns (see {@link JoinKeyVectors}). */
  public final Expression[] buildComputed;
  public final Expression[] probeComputed;
  /**
   * Spark's null-aware anti join ({@code NOT IN}, one key, build right): an empty build side keeps every
   * probe row, a null build key keeps none, a null probe key is dropped, otherwise an anti join on the key.
   */
  public final boolean nullAwareAnti;
  /** Per key: null matches null (a collapsed null-safe {@code <=>} pair); NaN matches NaN (normalized floats). */
  public final boolean[] nullsEqual;
  public final boolean[] nansEqual;
  public final StructType leftSchema;
  public final StructType rightSchema;
  public final String timeZone;
  public final int batchSize;
  public final long memoryLimit;
  public final String operatorName;
  /**
   * The output columns gathered, as ordinals into Spark's output of the join (ascending), or null for all of them:
   * a join's keys and condition columns are usually dropped by the Project above it, so they are not gathered.
   */
  public final int[] outputColumns;

  public JoinSpec(Kind kind, boolean buildLeft, int[] buildKeys, int[] probeKeys, Expression[] buildComputed,
      Expression[] probeComputed, boolean nullAwareAnti, boolean[] nullsEqual, boolean[] nansEqual,
      StructType leftSchema, StructType rightSchema, String timeZone, int batchSize, long memoryLimit,
      String operatorName) {
    this(kind, buildLeft, buildKeys, probeKeys, buildComputed, probeComputed, nullAwareAnti, nullsEqual, nansEqual,
        leftSchema, rightSchema, timeZone, batchSize, memoryLimit, operatorName, null);
  }

  private JoinSpec(Kind kind, boolean buildLeft, int[] buildKeys, int[] probeKeys, Expression[] buildComputed,
      Expression[] probeComputed, boolean nullAwareAnti, boolean[] nullsEqual, boolean[] nansEqual,
      StructType leftSchema, StructType rightSchema, String timeZone, int batchSize, long memoryLimit,
      String operatorName, int[] outputColumns) {
    if (nullAwareAnti && (kind != Kind.LEFT_ANTI || buildLeft || buildKeys.length != 1)) {
      throw new IllegalArgumentException("a null-aware anti join has one key and builds its right side");
    }
    if (kind == Kind.EXISTENCE && buildLeft) {
      throw new IllegalArgumentException("an existence join builds its right side");
    }
    this.kind = kind;
    this.buildLeft = buildLeft;
    this.buildKeys = buildKeys;
    this.probeKeys = probeKeys;
    this.buildComputed = buildComputed;
    this.probeComputed = probeComputed;
    this.nullAwareAnti = nullAwareAnti;
    this.nullsEqual = nullsEqual;
    this.nansEqual = nansEqual;
    this.leftSchema = leftSchema;
    this.rightSchema = rightSchema;
    this.timeZone = timeZone;
    this.batchSize = batchSize;
    this.memoryLimit = memoryLimit;
    this.operatorName = operatorName;
    this.outputColumns = outputColumns;
    if (outputColumns != null) {
      int width = fullOutputWidth();
      for (int i = 0; i < outputColumns.length; i++) {
        if (outputColumns[i] < 0 || outputColumns[i] >= width || (i > 0 && outputColumns[i] <= outputColumns[i - 1])) {
          throw new IllegalArgumentException("output columns " + Arrays.toString(outputColumns)
              + " are not ascending ordinals below the join's width " + width);
        }
      }
    }
  }

  /** The width of Spark's output of this join (before {@link #outputColumns}). */
  public int fullOutputWidth() {
    return leftSchema.fields().length + (existence() ? 0 : rightSchema.fields().length)
        + (kind == Kind.EXISTENCE ? 1 : 0);
  }

  /** This spec gathering only the given output columns (ordinals into Spark's output; null: all). */
  public JoinSpec keeping(int[] columns) {
    return new JoinSpec(kind, buildLeft, buildKeys, probeKeys, buildComputed, probeComputed, nullAwareAnti,
        nullsEqual, nansEqual, leftSchema, rightSchema, timeZone, batchSize, memoryLimit, operatorName, columns);
  }

  public StructType buildSchema() {
    return buildLeft ? leftSchema : rightSchema;
  }

  public StructType probeSchema() {
    return buildLeft ? rightSchema : leftSchema;
  }

  public JoinKeyVectors buildKeyVectors(BufferAllocator allocator) {
    return new JoinKeyVectors(buildKeys, buildSchema(), buildComputed, timeZone, allocator);
  }

  public JoinKeyVectors probeKeyVectors(BufferAllocator allocator) {
    return new JoinKeyVectors(probeKeys, probeSchema(), probeComputed, timeZone, allocator);
  }

  /** Only the existence of a passing pair matters (semi, anti, existence): pairs are never emitted. */
  public boolean existence() {
    return kind == Kind.LEFT_SEMI || kind == Kind.LEFT_ANTI || kind == Kind.EXISTENCE;
  }

  /**
   * Semi/anti with the probe side on the left, or an existence join: each probe row is kept, dropped or (existence)
   * flagged by itself.
   */
  public boolean probeExistence() {
    return existence() && !buildLeft;
  }

  /** Semi/anti with the build side on the left: build rows are kept or dropped after the last probe batch. */
  public boolean buildExistence() {
    return existence() && buildLeft;
  }

  /** Probe rows without a match are kept, padded with nulls. */
  public boolean probeOuter() {
    return kind == Kind.FULL_OUTER || (kind == Kind.LEFT_OUTER && !buildLeft) || (kind == Kind.RIGHT_OUTER && buildLeft);
  }

  /** Build rows without a match are kept, padded with nulls, after the last probe batch. */
  public boolean buildOuter() {
    return kind == Kind.FULL_OUTER || (kind == Kind.LEFT_OUTER && buildLeft) || (kind == Kind.RIGHT_OUTER && !buildLeft);
  }

  /** What identifies the build table of a broadcast, beside the broadcast's id. */
  public String buildTableKey() {
    return Arrays.toString(buildKeys) + Arrays.toString(buildComputed) + Arrays.toString(nullsEqual) + Arrays.toString(nansEqual) + buildSchema().json()
        + timeZone;
  }

  /**
   * This spec as its node's canonical plan holds it: computed keys in Spark's canonical form (they are
   * bound to ordinals, so no exprId is left in them) and the sides' schemas without column names (a
   * renamed column is the same column). Kind, build side, key ordinals, null and NaN semantics, types and
   * the settings captured at planning stay.
   */
  public JoinSpec canonicalized() {
    return new JoinSpec(kind, buildLeft, buildKeys, probeKeys, CanonicalForms.bound(buildComputed),
        CanonicalForms.bound(probeComputed), nullAwareAnti, nullsEqual, nansEqual,
        CanonicalForms.withoutNames(leftSchema), CanonicalForms.withoutNames(rightSchema), timeZone, batchSize,
        memoryLimit, operatorName, outputColumns);
  }

  /**
   * Value equality over every field, so plan nodes holding a spec compare as Spark's case classes do; their
   * canonical plans hold {@link #canonicalized()} (Spark's exchange, subquery and stage reuse).
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof JoinSpec other)) {
      return false;
    }
    return kind == other.kind && buildLeft == other.buildLeft && Arrays.equals(buildKeys, other.buildKeys)
        && Arrays.equals(probeKeys, other.probeKeys) && Arrays.equals(buildComputed, other.buildComputed)
        && Arrays.equals(probeComputed, other.probeComputed) && nullAwareAnti == other.nullAwareAnti
        && Arrays.equals(nullsEqual, other.nullsEqual)
        && Arrays.equals(nansEqual, other.nansEqual) && leftSchema.equals(other.leftSchema)
        && rightSchema.equals(other.rightSchema) && Objects.equals(timeZone, other.timeZone)
        && batchSize == other.batchSize && memoryLimit == other.memoryLimit
        && operatorName.equals(other.operatorName) && Arrays.equals(outputColumns, other.outputColumns);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, buildLeft, Arrays.hashCode(buildKeys), Arrays.hashCode(probeKeys), leftSchema,
        rightSchema);
  }

  @Override
  public String toString() {
    return kind + (nullAwareAnti ? " (null-aware)" : "") + (buildLeft ? ", build left" : ", build right");
  }
}
