package io.rowmatch.spark.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Function;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ArrowGather's by-address gathers against Arrow's copyFromSafe value by value: random source columns with
 * nulls, row indices with repeats and -1 (null padding), output sizes 0, 1, 63, 64, 65 and a few hundred,
 * fixed widths 2, 4, 8 and 16 and strings (empty, multibyte UTF-8) and binaries; sliced sources; malformed
 * offsets and out-of-range rows fail with a message instead of reading outside a buffer; nothing leaks.
 */
class ArrowGatherTest {
  private static final int[] SIZES = {0, 1, 63, 64, 65, 200, 1000};
  private static final String[] WORDS = {"", "a", "s123", "héllo wörld", "日本語のテキスト", "a much longer string value 0123456789"};

  private BufferAllocator root;

  @BeforeEach
  void open() {
    root = new RootAllocator();
  }

  @AfterEach
  void close() {
    root.close();
  }

  private <V extends FieldVector> void differential(Function<String, V> create, BiConsumer<V, Integer> setRandom,
      int sourceRows, long seed) {
    Random rnd = new Random(seed);
    try (V src = create.apply("src")) {
      src.setInitialCapacity(sourceRows);
      src.allocateNew();
      for (int r = 0; r < sourceRows; r++) {
        if (rnd.nextInt(5) != 0) {
          setRandom.accept(src, r);
        }
      }
      src.setValueCount(sourceRows);
      for (int size : SIZES) {
        int[] rows = new int[size];
        for (int i = 0; i < size; i++) {
          rows[i] = sourceRows == 0 || rnd.nextInt(6) == 0 ? -1 : rnd.nextInt(sourceRows);
        }
        check(src, rows, size, create);
      }
    }
  }

  private <V extends FieldVector> void check(V src, int[] rows, int size, Function<String, V> create) {
    int[] starts = new int[size];
    int[] lengths = new int[size];
    try (V got = create.apply("got"); V want = create.apply("want")) {
      assertTrue(ArrowGather.gather(src, rows, got, size, starts, lengths), src.getClass().getSimpleName());
      got.setValueCount(size);
      want.setInitialCapacity(Math.max(size, 1));
      want.allocateNew();
      for (int i = 0; i < size; i++) {
        if (rows[i] >= 0) {
          want.copyFromSafe(rows[i], i, src);
        }
      }
      want.setValueCount(size);
      for (int i = 0; i < size; i++) {
        String what = src.getClass().getSimpleName() + " size " + size + " row " + i + " <- " + rows[i];
        assertEquals(want.isNull(i), got.isNull(i), what);
        assertEquals(text(want.getObject(i)), text(got.getObject(i)), what);
      }
      assertEquals(size - countNulls(want, size), size - got.getNullCount(), "validity bits past the rows");
    }
  }

  private static String text(Object value) {
    return value instanceof byte[] b ? java.util.Arrays.toString(b) : String.valueOf(value);
  }

  private static int countNulls(FieldVector v, int size) {
    int n = 0;
    for (int i = 0; i < size; i++) {
      n += v.isNull(i) ? 1 : 0;
    }
    return n;
  }

  @Test
  void fixedWidthColumns() {
    for (int sourceRows : new int[] {0, 1, 70, 500}) {
      differential(n -> new BigIntVector(n, root), (v, r) -> v.set(r, new Random(r).nextLong()), sourceRows, 1);
      differential(n -> new IntVector(n, root), (v, r) -> v.set(r, r * 31 - 7), sourceRows, 2);
      differential(n -> new SmallIntVector(n, root), (v, r) -> v.set(r, (short) (int) r), sourceRows, 3);
      differential(n -> new DecimalVector(n, root, 20, 2),
          (v, r) -> v.set(r, new BigDecimal(r * 1_000_003L - 99).movePointLeft(2)), sourceRows, 4);
    }
  }

  @Test
  void variableWidthColumns() {
    for (int sourceRows : new int[] {0, 1, 70, 500}) {
      differential(n -> new VarCharVector(n, root),
          (v, r) -> v.setSafe(r, WORDS[r % WORDS.length].getBytes(StandardCharsets.UTF_8)), sourceRows, 5);
      differential(n -> new VarBinaryVector(n, root), (v, r) -> {
        byte[] b = new byte[r % 17];
        new Random(r).nextBytes(b);
        v.setSafe(r, b);
      }, sourceRows, 6);
    }
  }

  @Test
  void slicedSources() {
    try (VarCharVector whole = new VarCharVector("w", root); BigIntVector longs = new BigIntVector("l", root)) {
      whole.allocateNew();
      longs.allocateNew(300);
      for (int r = 0; r < 300; r++) {
        if (r % 7 != 0) {
          whole.setSafe(r, WORDS[r % WORDS.length].getBytes(StandardCharsets.UTF_8));
          longs.set(r, r * 11L);
        }
      }
      whole.setValueCount(300);
      longs.setValueCount(300);
      TransferPair tw = whole.getTransferPair(root);
      tw.splitAndTransfer(37, 150);
      TransferPair tl = longs.getTransferPair(root);
      tl.splitAndTransfer(37, 150);
      try (VarCharVector s = (VarCharVector) tw.getTo(); BigIntVector l = (BigIntVector) tl.getTo()) {
        Random rnd = new Random(8);
        int[] rows = new int[130];
        for (int i = 0; i < rows.length; i++) {
          rows[i] = rnd.nextInt(7) == 0 ? -1 : rnd.nextInt(150);
        }
        check(s, rows, rows.length, n -> new VarCharVector(n, root));
        check(l, rows, rows.length, n -> new BigIntVector(n, root));
      }
    }
  }

  @Test
  void booleansAreLeftToTheCaller() {
    try (BitVector src = new BitVector("b", root); BitVector dst = new BitVector("d", root)) {
      src.allocateNew(3);
      src.setValueCount(3);
      assertFalse(ArrowGather.gather(src, new int[] {0, 1}, dst, 2, new int[2], new int[2]));
    }
  }

  @Test
  void badRowsAndMalformedOffsetsFailWithAMessage() {
    try (VarCharVector src = new VarCharVector("s", root); VarCharVector dst = new VarCharVector("d", root);
        BigIntVector l = new BigIntVector("l", root); BigIntVector ld = new BigIntVector("ld", root)) {
      src.allocateNew();
      src.setSafe(0, "abc".getBytes(StandardCharsets.UTF_8));
      src.setSafe(1, "de".getBytes(StandardCharsets.UTF_8));
      src.setValueCount(2);
      l.allocateNew(2);
      l.set(0, 1);
      l.setValueCount(2);
      IndexOutOfBoundsException oob = assertThrows(IndexOutOfBoundsException.class,
          () -> ArrowGather.gather(l, new int[] {0, 2}, ld, 2, new int[2], new int[2]));
      assertTrue(oob.getMessage().contains("row 2"), oob.getMessage());
      // Offsets pointing past the data buffer: refused before any byte is read.
      src.getOffsetBuffer().setInt(8, Integer.MAX_VALUE - 1);
      IllegalStateException bad = assertThrows(IllegalStateException.class,
          () -> ArrowGather.gather(src, new int[] {1}, dst, 1, new int[1], new int[1]));
      assertTrue(bad.getMessage().contains("'s'") && bad.getMessage().contains("row 1"), bad.getMessage());
    }
  }
}
