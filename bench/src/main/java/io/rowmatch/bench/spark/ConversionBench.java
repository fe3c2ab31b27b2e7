package io.rowmatch.bench.spark;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.execution.RowToColumnConverter;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.rowmatch.spark.arrow.ColumnarToArrowBatches;
import io.rowmatch.spark.arrow.RowsToArrowBatches;

/**
 * Issue 5's conversions into Arrow, one batch of 8,192 rows per operation, against the anchor they replace:
 * Spark's ArrowWriter fed row by row (what the plugin used before). Inputs: UnsafeRows (what a shuffle or a
 * whole-stage-codegen stage hands over) and an OnHeapColumnVector batch (what the vectorized Parquet reader
 * hands over). Schema: bigint, int, double, a string of 4 to 24 bytes, decimal(12,2); 10% nulls per column.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ConversionBench {
  private static final int ROWS = 8192;
  private static final StructType SCHEMA = new StructType().add("l", DataTypes.LongType)
      .add("i", DataTypes.IntegerType).add("d", DataTypes.DoubleType).add("s", DataTypes.StringType)
      .add("m", DataTypes.createDecimalType(12, 2));

  private BufferAllocator allocator;
  private List<InternalRow> unsafeRows;
  private ColumnarBatch onHeap;
  private VectorSchemaRoot sparkRoot;
  private ArrowWriter sparkWriter;
  private RowsToArrowBatches rowmatchRows;
  private ColumnarToArrowBatches rowmatchColumns;

  @Setup(Level.Trial)
  public void setUp() {
    allocator = new RootAllocator();
    Random r = new Random(42);
    UnsafeProjection toUnsafe = UnsafeProjection.create(SCHEMA);
    unsafeRows = new ArrayList<>(ROWS);
    OnHeapColumnVector[] vectors = OnHeapColumnVector.allocateColumns(ROWS, SCHEMA);
    RowToColumnConverter toColumns = new RowToColumnConverter(SCHEMA);
    for (int i = 0; i < ROWS; i++) {
      Object[] v = {r.nextLong(), r.nextInt(), r.nextDouble(),
          UTF8String.fromString("s".repeat(4 + r.nextInt(21))), Decimal.apply(r.nextInt(1_000_000), 12, 2)};
      for (int c = 0; c < v.length; c++) {
        if (r.nextInt(10) == 0) {
          v[c] = null;
        }
      }
      InternalRow row = new GenericInternalRow(v);
      unsafeRows.add(toUnsafe.apply(row).copy());
      toColumns.convert(row, vectors);
    }
    onHeap = new ColumnarBatch(vectors, ROWS);
    sparkRoot = VectorSchemaRoot.create(ArrowUtils.toArrowSchema(SCHEMA, "UTC", false, false), allocator);
    sparkWriter = ArrowWriter.create(sparkRoot);
    // Endless inputs: each next() converts one whole pass (8,192 rows) into vectors reused across passes, as
    // Spark's writer reuses its root.
    rowmatchRows = new RowsToArrowBatches(cycle(unsafeRows), SCHEMA, "UTC", ROWS, allocator, Long.MAX_VALUE);
    rowmatchColumns = new ColumnarToArrowBatches(cycle(List.of(onHeap)), SCHEMA, "UTC", allocator,
        Long.MAX_VALUE);
  }

  private static <T> Iterator<T> cycle(List<T> items) {
    return new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return true;
      }

      @Override
      public T next() {
        T item = items.get(next);
        next = (next + 1) % items.size();
        return item;
      }
    };
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    rowmatchRows.close();
    rowmatchColumns.close();
    sparkRoot.close();
    onHeap.close();
    allocator.close();
  }

  private int sparkWriter(Iterator<InternalRow> rows) {
    sparkWriter.reset();
    while (rows.hasNext()) {
      sparkWriter.write(rows.next());
    }
    sparkWriter.finish();
    return sparkRoot.getRowCount();
  }

  /** Anchor: Spark's ArrowWriter over UnsafeRows. */
  @Benchmark
  public int rowsSparkArrowWriter() {
    return sparkWriter(unsafeRows.iterator());
  }

  @Benchmark
  public int rowsRowmatch() {
    return rowmatchRows.next().numRows();
  }

  /** Anchor: Spark's ArrowWriter over the rows of an OnHeapColumnVector batch (the plugin's former path). */
  @Benchmark
  public int columnarSparkArrowWriter() {
    return sparkWriter(onHeap.rowIterator());
  }

  @Benchmark
  public int columnarRowmatch() {
    return rowmatchColumns.next().numRows();
  }
}
