package io.rowmatch.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.ArrayEquals;

/** Spark's own ArrowWriter as the oracle: what a batch of rows must look like in Arrow. */
final class SparkWriterOracle {
  /** Bit-exact floats (NaN payloads kept), -0.0 distinct from 0.0: the copy must not normalize anything. */
  private static final ArrayEquals.Options EXACT = new ArrayEquals.Options(true, false);

  private SparkWriterOracle() {}

  /** Converts rows both ways and compares every batch column by column. Returns the batch count. */
  static int assertSameAsSparkWriter(BufferAllocator allocator, StructType schema, List<InternalRow> rows,
      int batchSize, Iterator<ColumnarBatch> ours) {
    int batches = 0;
    try (VectorSchemaRoot expected = VectorSchemaRoot.create(ArrowSchemas.toArrow(schema, "UTC"), allocator)) {
      ArrowWriter spark = ArrowWriter.create(expected);
      Iterator<InternalRow> it = rows.iterator();
      while (it.hasNext()) {
        spark.reset();
        int n = 0;
        while (n < batchSize && it.hasNext()) {
          spark.write(it.next());
          n++;
        }
        spark.finish();
        assertTrue(ours.hasNext(), "our converter ended early at batch " + batches);
        ColumnarBatch batch = ours.next();
        assertEquals(n, batch.numRows(), "rows in batch " + batches);
        for (int c = 0; c < schema.fields().length; c++) {
          FieldVector want = expected.getVector(c);
          FieldVector got = (FieldVector) ((ArrowColumnVector) batch.column(c)).getValueVector();
          assertEquals(n, got.getValueCount(), "value count of column " + c);
          assertTrue(ArrayEquals.equals(want, got, EXACT),
              "batch " + batches + " column " + c + " (" + schema.fields()[c].dataType().simpleString()
                  + ")\nwant " + want + "\ngot  " + got);
        }
        batches++;
      }
      assertFalse(ours.hasNext(), "our converter produced more batches than Spark's");
    }
    return batches;
  }
}
