package io.rowmatch.spark.join;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection$;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.spark.arrow.ArrowSchemas;
import io.rowmatch.spark.expression.ColumnarExpressions;

/**
 * The key columns of one side of a join for each of its batches. A key is either a column of the batch
 * (ordinal below the side's width) or a computed key: a deterministic expression over the side's columns
 * (Spark's cast of an int key to bigint, a normalized struct, {@code a + 1}), evaluated row by row with
 * Spark's own UnsafeProjection and written to Arrow with Spark's ArrowWriter, so the key values are exactly
 * the ones vanilla Spark computes and compares; when the columnar expression kernels evaluate every computed
 * key (a cast, arithmetic), they compute them a batch at a time instead, with the same values. Computing here rather than with a ProjectExec below the
 * join keeps the join's children (and so its output, partitioning and broadcast exchange) Spark's own, and
 * serves a broadcast build side, whose rows come out of Spark's HashedRelation, the same way.
 *
 * <p>Computed vectors are reused from batch to batch: valid until the next {@link #of} call. They are only
 * needed while the batch's keys are looked up or interned (the join table copies build keys). {@link #close}
 * releases them.
 */
public final class JoinKeyVectors implements AutoCloseable {
  private final int[] keys;
  private final int width;
  private final UnsafeProjection projection;
  /** When a computed key reads a nested column: the row as an UnsafeRow first (see the constructor). */
  private final UnsafeProjection toUnsafe;
  private final VectorSchemaRoot root;
  private final ArrowWriter writer;
  /** The computed keys as columnar kernels, or null (Spark's projection row by row). */
  private final ColumnarExpressions kernels;
  private final String timeZone;
  private final BufferAllocator allocator;
  private FieldVector[] computedVectors = new FieldVector[0];
  private final boolean[] nullable;

  /**
   * @param keys per key, an ordinal: below the side's width a column of the batch, else {@code width + i} for
   *     computed expression i
   * @param side the side's columns (the batch's schema)
   * @param computed expressions bound to the side's columns (BoundReference), in computed-key order
   */
  public JoinKeyVectors(int[] keys, StructType side, Expression[] computed, String timeZone,
      BufferAllocator allocator) {
    this.keys = keys.clone();
    this.width = side.fields().length;
    this.timeZone = timeZone;
    this.allocator = allocator;
    DataType[] sideTypes = new DataType[width];
    for (int i = 0; i < width; i++) {
      sideTypes[i] = side.fields()[i].dataType();
    }
    this.kernels = computed.length == 0 ? null : ColumnarExpressions.compileBound(computed, sideTypes);
    this.nullable = new boolean[computed.length];
    for (int i = 0; i < computed.length; i++) {
      nullable[i] = computed[i].nullable(); // as the ArrowWriter path's fields
    }
    if (computed.length == 0 || kernels != null) {
      this.projection = null;
      this.toUnsafe = null;
      this.root = null;
      this.writer = null;
      return;
    }
    // Spark's interpreted paths (higher-order functions such as the ArrayTransform that normalizes an array
    // of doubles) read nested values with get(i, type), which does not check for null; over Arrow vectors
    // that read of a null element throws. An UnsafeRow copy, whose writer does check, gives them what they
    // expect, at the price of a row copy only when a nested column is read.
    boolean nested = false;
    for (Expression e : computed) {
      nested |= readsNested(e);
    }
    DataType[] types = new DataType[width];
    for (int i = 0; i < width; i++) {
      types[i] = side.fields()[i].dataType();
    }
    this.toUnsafe = nested ? UnsafeProjection$.MODULE$.create(types) : null;
    StructField[] fields = new StructField[computed.length];
    for (int i = 0; i < computed.length; i++) {
      fields[i] = new StructField("_rowmatch_key_" + i, computed[i].dataType(), computed[i].nullable(),
          Metadata.empty());
    }
    this.projection = UnsafeProjection$.MODULE$.create(
        CollectionConverters.asScala(Arrays.asList(computed)).toSeq());
    this.root = VectorSchemaRoot.create(ArrowSchemas.toArrow(new StructType(fields), timeZone), allocator);
    this.writer = ArrowWriter.create(root);
  }

  /** True when some key is computed (the batch's rows are read to evaluate it). */
  public boolean computes() {
    return root != null || kernels != null;
  }

  /** The key vectors of {@code batch}, whose columns as Arrow vectors are {@code columns}. */
  public List<ValueVector> of(ValueVector[] columns, ColumnarBatch batch) {
    if (kernels != null) {
      releaseComputed();
      Object in = kernels.open(columns, batch.numRows());
      FieldVector[] out = new FieldVector[kernels.size()];
      try {
        for (int i = 0; i < out.length; i++) {
          out[i] = kernels.evaluate(in, i, "_rowmatch_key_" + i, nullable[i], timeZone, allocator);
        }
      } catch (RuntimeException | Error e) {
        for (FieldVector v : out) {
          if (v != null) {
            v.close();
          }
        }
        throw e;
      }
      computedVectors = out;
      List<ValueVector> result = new ArrayList<>(keys.length);
      for (int k : keys) {
        result.add(k < width ? columns[k] : out[k - width]);
      }
      return result;
    }
    if (root != null) {
      writer.reset();
      int n = batch.numRows();
      for (int r = 0; r < n; r++) {
        InternalRow row = batch.getRow(r);
        writer.write(projection.apply(toUnsafe == null ? row : toUnsafe.apply(row)));
      }
      writer.finish();
    }
    List<ValueVector> result = new ArrayList<>(keys.length);
    for (int i = 0; i < keys.length; i++) {
      int k = keys[i];
      result.add(k < width ? columns[k] : root.getVector(k - width));
    }
    return result;
  }

  private static boolean readsNested(Expression e) {
    if (e instanceof BoundReference b) {
      DataType t = b.dataType();
      return t instanceof StructType || t instanceof ArrayType || t instanceof MapType;
    }
    for (Expression c : CollectionConverters.asJava(e.children())) {
      if (readsNested(c)) {
        return true;
      }
    }
    return false;
  }

  private void releaseComputed() {
    for (FieldVector v : computedVectors) {
      v.close();
    }
    computedVectors = new FieldVector[0];
  }

  @Override
  public void close() {
    releaseComputed();
    if (root != null) {
      root.close();
    }
  }
}
