package io.rowmatch.spark.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.spark.expression.ColumnarExpressions;

/**
 * The columnar filter, on isnotnull conjuncts, keeps exactly the rows whose filtered columns are all non-null, in
 * order, with every value (NaN payloads, -0.0, empty and multibyte strings) as it was; batches without
 * such nulls pass through as the same object; nothing is leaked.
 */
class ColumnarFilterTest extends AllocatorTest {
  private static final String[] STRINGS = {"", "a", "ünï", "日本語", "twelve bytes+"};

  /** (k bigint, s string, d double): nulls in each column with probability nullShare. */
  private List<AutoCloseable> batch(int n, double nullShare, Random rnd, List<ColumnarBatch> out) {
    BigIntVector k = new BigIntVector("k", allocator);
    VarCharVector s = new VarCharVector("s", allocator);
    Float8Vector d = new Float8Vector("d", allocator);
    k.allocateNew(Math.max(n, 1));
    s.allocateNew(Math.max(n, 1));
    d.allocateNew(Math.max(n, 1));
    for (int r = 0; r < n; r++) {
      if (rnd.nextDouble() >= nullShare) {
        k.set(r, rnd.nextLong());
      }
      if (rnd.nextDouble() >= nullShare) {
        s.setSafe(r, STRINGS[rnd.nextInt(STRINGS.length)].getBytes(StandardCharsets.UTF_8));
      }
      if (rnd.nextDouble() >= nullShare) {
        d.set(r, rnd.nextBoolean() ? -0.0 : Double.longBitsToDouble(0x7ff8000000000000L | rnd.nextInt(1000)));
      }
    }
    k.setValueCount(n);
    s.setValueCount(n);
    d.setValueCount(n);
    out.add(new ColumnarBatch(new ColumnVector[] {new ArrowColumnVector(k), new ArrowColumnVector(s),
        new ArrowColumnVector(d)}, n));
    return List.of(k, s, d);
  }

  private static final DataType[] TYPES = {DataTypes.LongType, DataTypes.StringType, DataTypes.DoubleType};

  /** isnotnull(column) for each of the given columns of (k, s, d), compiled as RowmatchFilterExec does. */
  private static ColumnarExpressions notNull(int[] columns) {
    List<Attribute> input = new ArrayList<>();
    for (int c = 0; c < TYPES.length; c++) {
      input.add(new AttributeReference("c" + c, TYPES[c], true, Metadata.empty(), NamedExpression.newExprId(),
          CollectionConverters.asScala(List.<String>of()).toSeq()));
    }
    List<Expression> conjuncts = new ArrayList<>();
    for (int c : columns) {
      conjuncts.add(new IsNotNull(input.get(c)));
    }
    return ColumnarExpressions.compile(CollectionConverters.asScala(conjuncts).toSeq(),
        CollectionConverters.asScala(input).toSeq());
  }

  private static String row(ColumnarBatch b, int r) {
    StringBuilder sb = new StringBuilder();
    sb.append(b.column(0).isNullAt(r) ? "null" : Long.toString(b.column(0).getLong(r))).append('|');
    sb.append(b.column(1).isNullAt(r) ? "null" : b.column(1).getUTF8String(r).toString()).append('|');
    sb.append(b.column(2).isNullAt(r) ? "null" : Long.toHexString(Double.doubleToRawLongBits(b.column(2).getDouble(r))));
    return sb.toString();
  }

  @Test
  void keepsExactlyTheRowsWithoutNullsInTheFilteredColumns() throws Exception {
    Random rnd = new Random(3);
    for (int[] columns : new int[][] {{0}, {1}, {0, 1}, {0, 1, 2}}) {
      List<ColumnarBatch> batches = new ArrayList<>();
      List<AutoCloseable> vectors = new ArrayList<>();
      for (int n : new int[] {0, 1, 63, 64, 65, 1000}) {
        vectors.addAll(batch(n, 0.2, rnd, batches));
      }
      List<String> expected = new ArrayList<>();
      for (ColumnarBatch b : batches) {
        for (int r = 0; r < b.numRows(); r++) {
          boolean keep = true;
          for (int c : columns) {
            keep &= !b.column(c).isNullAt(r);
          }
          if (keep) {
            expected.add(row(b, r));
          }
        }
      }
      List<String> actual = new ArrayList<>();
      try (ColumnarFilter filter = ColumnarFilter.over(batches.iterator(), notNull(columns), allocator)) {
        while (filter.hasNext()) {
          ColumnarBatch b = filter.next();
          for (int r = 0; r < b.numRows(); r++) {
            actual.add(row(b, r));
          }
        }
      }
      assertEquals(expected, actual, "columns " + java.util.Arrays.toString(columns));
      assertFalse(expected.isEmpty());
      for (AutoCloseable v : vectors) {
        v.close();
      }
    }
  }

  @Test
  void aBatchWithoutNullsInTheFilteredColumnsPassesThroughUntouched() throws Exception {
    List<ColumnarBatch> batches = new ArrayList<>();
    List<AutoCloseable> vectors = batch(100, 0.0, new Random(4), batches);
    try (ColumnarFilter filter = ColumnarFilter.over(batches.iterator(), notNull(new int[] {0, 1}), allocator)) {
      assertSame(batches.get(0), filter.next());
    }
    for (AutoCloseable v : vectors) {
      v.close();
    }
  }

  @Test
  void closedEarlyReleasesTheFilteredBatch() throws Exception {
    List<ColumnarBatch> batches = new ArrayList<>();
    List<AutoCloseable> vectors = batch(500, 0.5, new Random(5), batches);
    long before = allocator.getAllocatedMemory();
    ColumnarFilter filter = ColumnarFilter.over(batches.iterator(), notNull(new int[] {0}), allocator);
    ColumnarBatch b = filter.next();
    assertEquals(true, b.numRows() < 500 && allocator.getAllocatedMemory() > before);
    filter.close();
    filter.close();
    assertEquals(before, allocator.getAllocatedMemory());
    for (AutoCloseable v : vectors) {
      v.close();
    }
  }
}
