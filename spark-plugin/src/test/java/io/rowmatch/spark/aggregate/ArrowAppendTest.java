package io.rowmatch.spark.aggregate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.Test;

/** ArrowAppend against copyFromSafe (the slow obvious reference), over many appends into one growing vector. */
class ArrowAppendTest {
  private static final String[] STRINGS = {"", "a", "ünï", "日本語", "a longer string than twelve bytes", "ab"};

  private static List<String> randomStrings(Random rnd, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(rnd.nextInt(5) == 0 ? null : STRINGS[rnd.nextInt(STRINGS.length)] + rnd.nextInt(3));
    }
    return out;
  }

  private static IntVector ints(BufferAllocator a, Random rnd, int n) {
    IntVector v = new IntVector("i", a);
    v.allocateNew(n);
    for (int i = 0; i < n; i++) {
      if (rnd.nextInt(5) != 0) {
        v.set(i, rnd.nextInt());
      }
    }
    v.setValueCount(n);
    return v;
  }

  private static SmallIntVector shorts(BufferAllocator a, Random rnd, int n) {
    SmallIntVector v = new SmallIntVector("h", a);
    v.allocateNew(n);
    for (int i = 0; i < n; i++) {
      if (rnd.nextInt(5) != 0) {
        v.set(i, (short) rnd.nextInt());
      }
    }
    v.setValueCount(n);
    return v;
  }

  private static TimeStampMicroTZVector timestamps(BufferAllocator a, Random rnd, int n) {
    TimeStampMicroTZVector v = new TimeStampMicroTZVector("t", a, "UTC");
    v.allocateNew(n);
    for (int i = 0; i < n; i++) {
      if (rnd.nextInt(5) != 0) {
        v.set(i, rnd.nextLong());
      }
    }
    v.setValueCount(n);
    return v;
  }

  private static String render(Object o) {
    return o instanceof byte[] b ? java.util.Arrays.toString(b) : String.valueOf(o);
  }

  /** Appends random row picks of fresh random batches (sizes 0, 1, 63, 64, 65, ...) both ways; compares. */
  private static void check(BiFunction<BufferAllocator, Random, FieldVector> batch) {
    try (BufferAllocator a = new RootAllocator()) {
      Random rnd = new Random(7);
      FieldVector probe = batch.apply(a, rnd);
      FieldVector fast = probe.getField().createVector(a);
      FieldVector slow = probe.getField().createVector(a);
      probe.close();
      int appended = 0;
      try {
        for (int round = 0; round < 40; round++) {
          try (FieldVector src = batch.apply(a, rnd)) {
            int n = src.getValueCount();
            int[] counts = {0, 1, 63, 64, 65, n};
            int count = Math.min(n, counts[round % counts.length] + (round > 12 ? rnd.nextInt(200) : 0));
            int[] rows = new int[count + 3];
            for (int i = 0; i < count; i++) {
              rows[i] = rnd.nextInt(n);
            }
            assertTrue(ArrowAppend.append(src, rows, count, fast, appended));
            for (int i = 0; i < count; i++) {
              slow.copyFromSafe(rows[i], appended + i, src);
            }
            appended += count;
          }
        }
        fast.setValueCount(appended);
        slow.setValueCount(appended);
        assertTrue(appended > 1000, "appended " + appended);
        for (int i = 0; i < appended; i++) {
          assertEquals(slow.isNull(i), fast.isNull(i), "null at " + i);
          assertEquals(render(slow.getObject(i)), render(fast.getObject(i)), "value at " + i);
        }
        // a slice (zero-copy, starting mid-batch) is a valid source too
        TransferPair pair = slow.getTransferPair(a);
        pair.splitAndTransfer(5, 70);
        try (FieldVector slice = (FieldVector) pair.getTo(); FieldVector out = slice.getField().createVector(a)) {
          int[] rows = new int[70];
          for (int i = 0; i < 70; i++) {
            rows[i] = 69 - i;
          }
          assertTrue(ArrowAppend.append(slice, rows, 70, out, 0));
          out.setValueCount(70);
          for (int i = 0; i < 70; i++) {
            assertEquals(render(slow.getObject(5 + 69 - i)), render(out.getObject(i)));
          }
        }
      } finally {
        fast.close();
        slow.close();
      }
    }
  }

  @Test
  void fixedWidthMatchesCopyFromSafe() {
    check((a, rnd) -> ints(a, rnd, 1 + rnd.nextInt(300)));
    check((a, rnd) -> shorts(a, rnd, 1 + rnd.nextInt(300)));
    check((a, rnd) -> timestamps(a, rnd, 1 + rnd.nextInt(300)));
    check((a, rnd) -> {
      List<Long> xs = new ArrayList<>();
      for (int i = 0, n = 1 + rnd.nextInt(300); i < n; i++) {
        xs.add(rnd.nextInt(6) == 0 ? null : rnd.nextLong());
      }
      return TestVectors.longs(a, xs);
    });
    check((a, rnd) -> {
      List<BigDecimal> xs = new ArrayList<>();
      for (int i = 0, n = 1 + rnd.nextInt(300); i < n; i++) {
        xs.add(rnd.nextInt(6) == 0 ? null : new BigDecimal(rnd.nextLong() + "" + rnd.nextInt(1000)).movePointLeft(3));
      }
      return TestVectors.decimals(a, 30, 3, xs);
    });
  }

  @Test
  void variableWidthMatchesCopyFromSafe() {
    check((a, rnd) -> TestVectors.strings(a, randomStrings(rnd, 1 + rnd.nextInt(300))));
    check((a, rnd) -> {
      List<byte[]> xs = new ArrayList<>();
      for (int i = 0, n = 1 + rnd.nextInt(300); i < n; i++) {
        byte[] b = new byte[rnd.nextInt(40)];
        rnd.nextBytes(b);
        xs.add(rnd.nextInt(5) == 0 ? null : b);
      }
      return TestVectors.binaries(a, xs);
    });
  }

  @Test
  void unhandledLayoutsAndMismatchedDestinationsReturnFalse() {
    try (BufferAllocator a = new RootAllocator();
        BitVector bits = TestVectors.booleans(a, List.of(true, false));
        BitVector out = new BitVector("o", a);
        VarCharVector s = TestVectors.strings(a, List.of("x", "y"));
        VarCharVector half = TestVectors.strings(a, List.of("p"))) {
      assertFalse(ArrowAppend.append(bits, new int[] {0, 1}, 2, out, 0));
      // the destination holds one value but the caller claims none: not appended here
      assertFalse(ArrowAppend.append(s, new int[] {0}, 1, half, 0));
      assertEquals(0, out.getValueCount());
    }
  }

  @Test
  void badRowsAndOffsetsFailWithoutReadingOutside() {
    try (BufferAllocator a = new RootAllocator();
        VarCharVector s = TestVectors.strings(a, List.of("abc", "de"));
        VarCharVector out = new VarCharVector("o", a);
        IntVector ints = new IntVector("i", a);
        IntVector intsOut = new IntVector("o", a)) {
      assertThrows(IndexOutOfBoundsException.class, () -> ArrowAppend.append(s, new int[] {2}, 1, out, 0));
      assertThrows(IndexOutOfBoundsException.class, () -> ArrowAppend.append(s, new int[] {-1}, 1, out, 0));
      s.getOffsetBuffer().setInt(8, 1 << 30); // second value's end past the data
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> ArrowAppend.append(s, new int[] {1}, 1, out, 0));
      assertTrue(e.getMessage().contains("offsets"), e.getMessage());
      // 100 values declared over buffers that hold 8 bytes of data: refused before any raw read
      try (ArrowBuf validity = a.buffer(16); ArrowBuf data = a.buffer(8)) {
        validity.setOne(0, 16);
        ints.loadFieldBuffers(new ArrowFieldNode(100, 0), List.of(validity, data));
      }
      IllegalArgumentException shortBuffers = assertThrows(IllegalArgumentException.class,
          () -> ArrowAppend.append(ints, new int[] {99}, 1, intsOut, 0));
      assertTrue(shortBuffers.getMessage().contains("buffers shorter"), shortBuffers.getMessage());
    }
  }
}
