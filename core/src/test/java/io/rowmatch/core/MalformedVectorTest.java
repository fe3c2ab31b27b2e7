package io.rowmatch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ViewVarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;

/**
 * Vectors whose buffers contradict their metadata, as IPC or the C Data interface can deliver them.
 * Each gives a {@link MalformedVectorException} naming the column (and row) or a defined answer, never
 * a crash. Tagged "malformed": the build runs this class a second time with
 * {@code -Darrow.enable_unsafe_memory_access=true}, where Arrow itself checks nothing.
 */
@Tag("malformed")
class MalformedVectorTest extends AllocatorTest {
  private final List<ArrowBuf> buffers = new ArrayList<>();

  @AfterEach
  void closeBuffers() {
    buffers.forEach(ArrowBuf::close);
  }

  private ArrowBuf buf(long bytes) {
    ArrowBuf b = allocator.buffer(bytes);
    b.setZero(0, b.capacity());
    buffers.add(b);
    return b;
  }

  private ArrowBuf ints(int... values) {
    ArrowBuf b = buf(4L * values.length);
    for (int i = 0; i < values.length; i++) {
      b.setInt(4L * i, values[i]);
    }
    return b;
  }

  private ArrowBuf allValid(int rows) {
    ArrowBuf b = buf((rows + 7) / 8);
    for (int i = 0; i < b.capacity(); i++) {
      b.setByte(i, 0xff);
    }
    return b;
  }

  private static <V extends FieldVector> V load(V v, int rows, int nulls, ArrowBuf... own) {
    // No setValueCount afterwards: it would reallocate the short buffers this test wants to keep.
    v.loadFieldBuffers(new ArrowFieldNode(rows, nulls), List.of(own));
    return v;
  }

  private static void assertNames(MalformedVectorException e, String... parts) {
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), () -> "'" + e.getMessage() + "' should mention '" + p + "'");
    }
  }

  @Test
  void validityBufferShorterThanTheValueCount() {
    try (IntVector good = new IntVector("x", allocator);
        IntVector bad = load(new IntVector("x", allocator), 100, 3, buf(2), buf(400))) {
      good.allocateNew(100);
      good.setValueCount(100);
      MalformedVectorException e = assertThrows(MalformedVectorException.class,
          () -> MultiColumnComparator.build(List.of(good), List.of(bad), new boolean[1], new boolean[1]));
      assertNames(e, "column 0 (right)", "validity", "13");
    }
  }

  @Test
  void dataBufferShorterThanTheValueCount() {
    try (IntVector bad = load(new IntVector("x", allocator), 10, 1, allValid(10), buf(8))) {
      MalformedVectorException e = assertThrows(MalformedVectorException.class,
          () -> MultiColumnComparator.build(List.of(bad), List.of(bad), new boolean[1], new boolean[1]));
      assertNames(e, "column 0 (left)", "data", "40");
    }
  }

  @Test
  void emptyValidityWithDeclaredNullsMeansAllValid() {
    // Java keeps no separate null count: an absent bitmap is Arrow's "no nulls", the defined answer.
    try (IntVector v = load(new IntVector("x", allocator), 3, 2, buf(0), ints(4, 5, 4));
        MultiColumnComparator c = MultiColumnComparator.build(List.of(v), List.of(v), new boolean[1],
            new boolean[1])) {
      assertTrue(c.equal(0, 2));
      assertFalse(c.equal(0, 1));
    }
  }

  @Test
  void offsetsBufferTooShort() {
    try (VarCharVector bad = load(new VarCharVector("s", allocator), 4, 1, allValid(4), ints(0, 1, 2), buf(8))) {
      MalformedVectorException e = assertThrows(MalformedVectorException.class,
          () -> MultiColumnComparator.build(List.of(bad), List.of(bad), new boolean[1], new boolean[1]));
      assertNames(e, "column 0", "offsets", "20");
    }
  }

  @Test
  void decreasingOffsetsAreReportedWithTheRow() {
    try (VarCharVector bad = load(new VarCharVector("s", allocator), 3, 1, allValid(3), ints(0, 5, 3, 8), buf(8));
        MultiColumnComparator c = MultiColumnComparator.build(List.of(bad), List.of(bad), new boolean[1],
            new boolean[1])) {
      assertTrue(c.equal(0, 0));
      MalformedVectorException e = assertThrows(MalformedVectorException.class, () -> c.equal(1, 0));
      assertNames(e, "column 0 (left)", "row 1", "[5, 3)");
      assertThrows(MalformedVectorException.class,
          () -> c.equalMany(new int[] {0, 1}, new int[] {0, 1}, 2, new boolean[2]));
    }
  }

  /**
   * A value's two offsets are read as one 8-byte word: at the last row that word ends exactly at the end of
   * an offsets buffer of valueCount + 1 entries (a slice, so nothing lies past it), and still gives the right
   * answers, or the error naming the last row when its end offset runs past the data.
   */
  @Test
  void lastRowOfAnOffsetsBufferHoldingExactlyValueCountPlusOneEntries() {
    ArrowBuf data = buf(8);
    data.setBytes(0, "abcdeab".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    ArrowBuf exact = ints(0, 2, 5, 7, 0).slice(0, 16);
    ArrowBuf pastData = ints(0, 2, 5, 9, 0).slice(0, 16);
    try (VarCharVector v = load(new VarCharVector("s", allocator), 3, 0, allValid(3), exact, data);
        VarCharVector bad = load(new VarCharVector("s", allocator), 3, 0, allValid(3), pastData, data);
        MultiColumnComparator c = MultiColumnComparator.build(List.of(v), List.of(v), new boolean[1],
            new boolean[1]);
        MultiColumnComparator b = MultiColumnComparator.build(List.of(v), List.of(bad), new boolean[1],
            new boolean[1])) {
      assertEquals(16, exact.capacity());
      assertTrue(c.equal(2, 2));
      assertTrue(c.equal(0, 2)); // "ab" and "ab"
      assertFalse(c.equal(1, 2));
      boolean[] out = new boolean[3];
      c.equalMany(new int[] {2, 0, 1}, new int[] {2, 2, 2}, 3, out);
      assertTrue(out[0] && out[1] && !out[2]);
      assertTrue(b.equal(1, 1));
      MalformedVectorException e = assertThrows(MalformedVectorException.class, () -> b.equal(2, 2));
      assertNames(e, "column 0 (right)", "row 2", "[5, 9)");
    }
  }

  @Test
  void offsetsPastTheDataBuffer() {
    try (VarCharVector bad = load(new VarCharVector("s", allocator), 2, 1, allValid(2), ints(0, 4, 1 << 20),
        buf(8)); MultiColumnComparator c = MultiColumnComparator.build(List.of(bad), List.of(bad),
            new boolean[1], new boolean[1])) {
      MalformedVectorException e = assertThrows(MalformedVectorException.class, () -> c.equal(0, 1));
      assertNames(e, "column 0 (right)", "row 1", "1048576");
    }
  }

  @Test
  void negativeLargeOffsets() {
    ArrowBuf offsets = buf(24);
    offsets.setLong(0, 0);
    offsets.setLong(8, -16);
    offsets.setLong(16, 4);
    try (LargeVarCharVector bad = load(new LargeVarCharVector("s", allocator), 2, 1, allValid(2), offsets, buf(8));
        MultiColumnComparator c = MultiColumnComparator.build(List.of(bad), List.of(bad), new boolean[1],
            new boolean[1])) {
      assertThrows(MalformedVectorException.class, () -> c.equal(0, 0));
      assertThrows(MalformedVectorException.class, () -> c.equal(1, 1));
    }
  }

  @Test
  void nonZeroFirstOffsetIsLegal() {
    ArrowBuf data = buf(8);
    data.setBytes(0, "xxabab".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    try (VarCharVector v = load(new VarCharVector("s", allocator), 2, 0, allValid(2), ints(2, 4, 6), data);
        MultiColumnComparator c = MultiColumnComparator.build(List.of(v), List.of(v), new boolean[1],
            new boolean[1])) {
      assertTrue(c.equal(0, 1));
    }
  }

  @Test
  void malformedOffsetsUnderANullAreNeverRead() {
    ArrowBuf validity = buf(1);
    validity.setByte(0, 0b101);
    try (VarCharVector v = load(new VarCharVector("s", allocator), 3, 1, validity, ints(0, 1, -50, 2), buf(8));
        MultiColumnComparator c = MultiColumnComparator.build(List.of(v), List.of(v), new boolean[] {true},
            new boolean[1])) {
      assertTrue(c.equal(1, 1));
    }
  }

  @Test
  void viewPointingOutsideItsBuffer() {
    ArrowBuf views = buf(32);
    views.setInt(0, 3); // inline "abc"
    views.setBytes(4, "abc".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    views.setInt(16, 20); // out of line: 20 bytes at buffer 0, offset 1000
    views.setInt(24, 0);
    views.setInt(28, 1000);
    ArrowBuf views2 = buf(16);
    views2.setInt(0, 20);
    views2.setInt(8, 5); // buffer index 5 of 1
    try (ViewVarCharVector bad = load(new ViewVarCharVector("v", allocator), 2, 0, allValid(2), views, buf(64));
        ViewVarCharVector bad2 = load(new ViewVarCharVector("v", allocator), 1, 0, allValid(1), views2, buf(64));
        MultiColumnComparator c = MultiColumnComparator.build(List.of(bad), List.of(bad2), new boolean[1],
            new boolean[1])) {
      assertFalse(c.equal(0, 0)); // lengths differ: nothing referenced is read
      MalformedVectorException e = assertThrows(MalformedVectorException.class, () -> c.equal(1, 0));
      assertNames(e, "column 0", "row");
    }
  }

  @Test
  void listOffsetsPastTheChild() {
    Field field = new Field("l", FieldType.nullable(new ArrowType.List()),
        List.of(new Field("item", FieldType.nullable(new ArrowType.Int(32, true)), null)));
    try (ListVector list = (ListVector) field.createVector(allocator)) {
      list.loadFieldBuffers(new ArrowFieldNode(2, 0), List.of(allValid(2), ints(0, 1, 9)));
      IntVector child = (IntVector) list.getDataVector();
      child.loadFieldBuffers(new ArrowFieldNode(2, 0), List.of(allValid(2), ints(7, 7)));
      try (MultiColumnComparator c = MultiColumnComparator.build(List.of(list), List.of(list), new boolean[1],
          new boolean[1])) {
        assertTrue(c.equal(0, 0));
        MalformedVectorException e = assertThrows(MalformedVectorException.class, () -> c.equal(1, 1));
        assertNames(e, "column 0 (left)", "row 1");
      } catch (MalformedVectorException atBuild) {
        fail(atBuild);
      }
    }
  }

  private static void fail(Throwable t) {
    throw new AssertionError("unexpected at build: " + t.getMessage(), t);
  }

  @Test
  void allocatorBalanceAfterErrors() {
    dataBufferShorterThanTheValueCount();
    assertEquals(0, allocator.getAllocatedMemory() - buffers.stream().mapToLong(ArrowBuf::capacity).sum());
  }
}
