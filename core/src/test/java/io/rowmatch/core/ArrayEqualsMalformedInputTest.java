package io.rowmatch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BoundsChecking;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ViewVarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.compare.ArrayRangeEquality;
import io.rowmatch.core.compare.RunPath;
import io.rowmatch.core.testing.AllocatorTest;

/**
 * Bad input: a clear {@link MalformedVectorException} naming the side, column and row, or a defined
 * answer; never a crash or a read outside a buffer. core/pom.xml runs this class a second time with
 * {@code -Darrow.enable_unsafe_memory_access=true}, where Arrow's own bounds checks are off.
 */
@Tag("malformed")
class ArrayEqualsMalformedInputTest extends AllocatorTest {
  private static final int[] PATHS = {RunPath.AUTO, RunPath.SCALAR, RunPath.FORCE_RUNS};
  private static final int N = 100;


  private static String value(int i) {
    return "value number " + i + " of the test";
  }

  private VarCharVector strings(int n) {
    VarCharVector v = new VarCharVector("s", allocator);
    v.allocateNew();
    for (int i = 0; i < n; i++) {
      v.setSafe(i, value(i).getBytes(StandardCharsets.UTF_8));
    }
    v.setValueCount(n);
    return v;
  }

  private ArrowBuf ints(int... values) {
    ArrowBuf b = allocator.buffer(4L * values.length);
    for (int i = 0; i < values.length; i++) {
      b.setInt(4L * i, values[i]);
    }
    return b;
  }

  private ArrowBuf bytes(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    ArrowBuf buf = allocator.buffer(b.length);
    buf.setBytes(0, b);
    return buf;
  }

  /** Loads raw buffers as IPC would; the vector retains them, so ours are released here. */
  private static <V extends FieldVector> V load(V vector, int length, int nullCount, ArrowBuf... buffers) {
    vector.loadFieldBuffers(new ArrowFieldNode(length, nullCount), List.of(buffers));
    for (ArrowBuf b : buffers) {
      b.getReferenceManager().release();
    }
    return vector;
  }

  private static boolean equal(ValueVector l, ValueVector r, int path) {
    return ArrayRangeEquality.equal(l, 0, r, 0, l.getValueCount(), false, true, path);
  }

  private static void assertMalformed(ValueVector l, ValueVector r, String... fragments) {
    for (int path : PATHS) {
      MalformedVectorException e = assertThrows(MalformedVectorException.class, () -> equal(l, r, path),
          "path " + path);
      for (String f : fragments) {
        assertTrue(e.getMessage().contains(f), "'" + e.getMessage() + "' should name " + f);
      }
    }
  }

  @Test
  void theUnsafeFlagReachesArrow() {
    // The second surefire execution sets the flag; this proves Arrow's checks are really off there.
    assertEquals(!Boolean.getBoolean("arrow.enable_unsafe_memory_access"), BoundsChecking.BOUNDS_CHECKING_ENABLED);
  }

  @Test
  void declaredNullsWithAnEmptyValidityBufferMeanAllValid() {
    // Java keeps no separate null count: the node says 1 null, the buffer is empty, so every value is valid.
    try (VarCharVector odd = load(new VarCharVector("s", allocator), 3, 1, allocator.getEmpty(), ints(0, 2, 3, 3),
        bytes("abc"));
         VarCharVector same = new VarCharVector("t", allocator);
         VarCharVector withNull = new VarCharVector("t", allocator)) {
      same.allocateNew();
      same.setSafe(0, "ab".getBytes(StandardCharsets.UTF_8));
      same.setSafe(1, "c".getBytes(StandardCharsets.UTF_8));
      same.setSafe(2, new byte[0]);
      same.setValueCount(3);
      withNull.allocateNew();
      withNull.setSafe(0, "ab".getBytes(StandardCharsets.UTF_8));
      withNull.setSafe(1, "c".getBytes(StandardCharsets.UTF_8));
      withNull.setNull(2);
      withNull.setValueCount(3);
      assertEquals(0, odd.getValidityBuffer().capacity());
      for (int path : PATHS) {
        assertTrue(equal(odd, same, path));
        assertTrue(equal(same, odd, path));
        assertTrue(equal(odd, odd, path));
        assertFalse(equal(odd, withNull, path));
        assertFalse(equal(withNull, odd, path));
      }
    }
    try (IntVector odd = load(new IntVector("i", allocator), 70, 5, allocator.getEmpty(), allocator.buffer(280));
         IntVector nulls = new IntVector("i", allocator)) {
      odd.getDataBuffer().setZero(0, 280);
      nulls.allocateNew(70);
      for (int i = 0; i < 70; i++) {
        nulls.set(i, 0);
      }
      nulls.setValueCount(70);
      for (int path : PATHS) {
        assertTrue(equal(odd, nulls, path));
        nulls.setNull(69);
        assertFalse(equal(odd, nulls, path));
        nulls.set(69, 0);
      }
    }
  }

  @Test
  void validityBufferShorterThanTheLength() {
    ArrowBuf wide = allocator.buffer(8);
    wide.setZero(0, 8);
    ArrowBuf shortValidity = wide.slice(0, 2); // 16 bits for 100 values
    shortValidity.getReferenceManager().retain();
    wide.getReferenceManager().release();
    int[] offsets = new int[N + 1];
    try (VarCharVector bad = load(new VarCharVector("s", allocator), N, 3, shortValidity, ints(offsets), bytes("x"));
         VarCharVector good = strings(N)) {
      assertMalformed(bad, good, "left 's'", "validity");
      assertMalformed(good, bad, "right 's'", "validity");
    }
  }

  @Test
  void decreasingOffsets() {
    try (VarCharVector l = strings(N); VarCharVector r = strings(N)) {
      for (VarCharVector v : List.of(l, r)) {
        ArrowBuf o = v.getOffsetBuffer();
        o.setInt(4L * 71, o.getInt(4L * 70) - 1);
      }
      // Both sides alike: nothing can be found unequal first, so every path must report it.
      assertMalformed(l, r, "left 's'", "row 70");
    }
    try (VarCharVector l = strings(N); VarCharVector r = strings(N)) {
      ArrowBuf o = r.getOffsetBuffer();
      o.setInt(4L * 71, o.getInt(4L * 70) - 1);
      // One side only: the error, or "unequal" when a length difference is found first; never true.
      for (int path : PATHS) {
        try {
          assertFalse(equal(l, r, path));
        } catch (MalformedVectorException e) {
          assertTrue(e.getMessage().contains("right 's'") && e.getMessage().contains("row 70"), e.getMessage());
        }
      }
    }
  }

  @Test
  void offsetsPastTheDataBuffer() {
    try (VarCharVector l = strings(N); VarCharVector r = strings(N)) {
      for (VarCharVector v : List.of(l, r)) {
        v.getOffsetBuffer().setInt(4L * N, (int) v.getDataBuffer().capacity() + 10);
      }
      assertMalformed(l, r, "left 's'", "row " + (N - 1));
    }
    try (VarCharVector l = strings(N); VarCharVector r = strings(N)) {
      for (VarCharVector v : List.of(l, r)) {
        v.getOffsetBuffer().setInt(4L * 50, Integer.MAX_VALUE);
      }
      assertMalformed(l, r, "left 's'", "row 49");
    }
    try (VarCharVector l = strings(N); VarCharVector r = strings(N)) {
      for (VarCharVector v : List.of(l, r)) {
        v.getOffsetBuffer().setInt(0, -5);
      }
      assertMalformed(l, r, "left 's'", "row 0");
    }
    try (VarCharVector l = strings(N); VarCharVector r = strings(N)) {
      // Past the data only under a null: never read, equal.
      for (VarCharVector v : List.of(l, r)) {
        v.setNull(N - 1);
        v.getOffsetBuffer().setInt(4L * N, Integer.MAX_VALUE);
      }
      for (int path : PATHS) {
        assertTrue(equal(l, r, path));
      }
    }
  }

  @Test
  void firstOffsetNotZeroIsLegal() {
    String[] values = {"ab", "c", "", "defg"};
    try (VarCharVector shifted = load(new VarCharVector("s", allocator), 4, 0, allocator.getEmpty(),
        ints(5, 7, 8, 8, 12), bytes("JUNK!abcdefg"));
         VarCharVector plain = new VarCharVector("s", allocator);
         VarCharVector other = new VarCharVector("s", allocator);
         LargeVarCharVector largeShifted = new LargeVarCharVector("s", allocator);
         LargeVarCharVector largePlain = new LargeVarCharVector("s", allocator)) {
      plain.allocateNew();
      other.allocateNew();
      largePlain.allocateNew();
      for (int i = 0; i < values.length; i++) {
        plain.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
        other.setSafe(i, (i == 3 ? "defh" : values[i]).getBytes(StandardCharsets.UTF_8));
        largePlain.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
      }
      plain.setValueCount(4);
      other.setValueCount(4);
      largePlain.setValueCount(4);
      ArrowBuf offsets = allocator.buffer(40);
      long[] o = {5, 7, 8, 8, 12};
      for (int i = 0; i < o.length; i++) {
        offsets.setLong(8L * i, o[i]);
      }
      load(largeShifted, 4, 0, allocator.getEmpty(), offsets, bytes("JUNK!abcdefg"));
      for (int path : PATHS) {
        assertTrue(equal(shifted, plain, path));
        assertTrue(equal(plain, shifted, path));
        assertFalse(equal(shifted, other, path));
        assertTrue(equal(largeShifted, largePlain, path));
        assertTrue(ArrayRangeEquality.equal(shifted, 1, plain, 1, 3, false, true, path));
      }
      assertTrue(ArrayEquals.equals(shifted, plain));
    }
  }

  @Test
  void viewEntriesOutsideTheirBuffers() {
    String longValue = "a value longer than twelve bytes";
    // Corruptions of row 40's view: offset past the buffer, a buffer that does not exist, negative length.
    int[][] corruptions = {{12, -1}, {8, 7}, {0, -3}};
    for (int[] c : corruptions) {
      try (ViewVarCharVector l = new ViewVarCharVector("v", allocator);
           ViewVarCharVector r = new ViewVarCharVector("v", allocator)) {
        for (ViewVarCharVector v : List.of(l, r)) {
          v.allocateNew();
          for (int i = 0; i < N; i++) {
            v.setSafe(i, (longValue + i).getBytes(StandardCharsets.UTF_8));
          }
          v.setValueCount(N);
          int value = c[1] == -1 ? (int) v.getDataBuffers().get(0).capacity() : c[1];
          v.getDataBuffer().setInt(16L * 40 + c[0], value);
        }
        assertMalformed(l, r, "left 'v'", "row 40");
      }
    }
  }

  @Test
  void listOffsetsPastTheChild() {
    try (ListVector l = ListVector.empty("l", allocator); ListVector r = ListVector.empty("l", allocator)) {
      for (ListVector v : List.of(l, r)) {
        v.addOrGetVector(org.apache.arrow.vector.types.pojo.FieldType.nullable(
            org.apache.arrow.vector.types.Types.MinorType.INT.getType()));
        v.allocateNew();
        IntVector items = (IntVector) v.getDataVector();
        for (int i = 0; i < N; i++) {
          int start = v.startNewValue(i);
          items.setSafe(start, i);
          v.endValue(i, 1);
        }
        v.setValueCount(N);
        v.getOffsetBuffer().setInt(4L * 80, 1_000_000);
      }
      assertMalformed(l, r, "left 'l'", "row 79");
    }
  }

  @Test
  void dataBufferShorterThanTheValues() {
    ArrowBuf validity = allocator.buffer(2);
    validity.setZero(0, 2);
    try (IntVector bad = load(new IntVector("i", allocator), 16, 16, validity, allocator.buffer(8));
         IntVector good = new IntVector("i", allocator)) {
      good.allocateNew(16);
      good.setValueCount(16);
      assertMalformed(bad, good, "left 'i'", "data");
    }
    try (VarBinaryVector bad = load(new VarBinaryVector("b", allocator), 10, 0, allocator.getEmpty(), ints(0, 1),
        bytes("x"));
         VarBinaryVector good = new VarBinaryVector("b", allocator)) {
      good.allocateNew();
      good.setValueCount(10);
      assertMalformed(good, bad, "right 'b'", "offsets");
    }
  }

  @Test
  void malformedSideIsNotReadPastItsBuffersUnderNulls() {
    // Garbage offsets under every null: validity says null, so the values are not looked at.
    try (VarCharVector l = strings(N); VarCharVector r = strings(N)) {
      for (VarCharVector v : List.of(l, r)) {
        for (int i = 10; i < 20; i++) {
          v.setNull(i);
        }
      }
      ((BaseVariableWidthVector) r).getOffsetBuffer().setInt(4L * 15, -1000);
      for (int path : PATHS) {
        assertTrue(equal(l, r, path));
      }
    }
  }
}
