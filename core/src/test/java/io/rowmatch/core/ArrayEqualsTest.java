package io.rowmatch.core;

import static io.rowmatch.core.testing.TestVectors.namedStrings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.UnionVector;
import org.apache.arrow.vector.types.Types;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;

/** The contract of {@link ArrayEquals}: types, lengths, validity, floats by options, nested, arguments. */
class ArrayEqualsTest extends AllocatorTest {
  private static final ArrayEquals.Options NANS_EQUAL = new ArrayEquals.Options(true, true);
  private static final ArrayEquals.Options ZEROS_DIFFER = new ArrayEquals.Options(false, false);

  private Float8Vector doubles(String name, double... values) {
    Float8Vector v = new Float8Vector(name, allocator);
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      v.set(i, values[i]);
    }
    v.setValueCount(values.length);
    return v;
  }

  @Test
  void namesNullabilityAndMetadataAreIgnored() {
    try (VarCharVector a = namedStrings(allocator, "a", FieldType.nullable(ArrowType.Utf8.INSTANCE), "x", null, "yz");
         VarCharVector b = namedStrings(allocator, "b", new FieldType(false, ArrowType.Utf8.INSTANCE, null, Map.of("k", "v")),
             "x", null, "yz")) {
      assertTrue(ArrayEquals.equals(a, b));
      assertTrue(ArrayEquals.equals(b, a));
    }
  }

  @Test
  void typesMustMatchStrictly() {
    try (IntVector i = new IntVector("v", allocator); BigIntVector l = new BigIntVector("v", allocator);
         VarCharVector s = namedStrings(allocator, "v", FieldType.nullable(ArrowType.Utf8.INSTANCE), null, null);
         VarBinaryVector b = new VarBinaryVector("v", allocator);
         NullVector n2 = new NullVector("v", 2); NullVector n2b = new NullVector("w", 2); NullVector n3 = new NullVector("v", 3);
         TimeStampMicroTZVector utc = new TimeStampMicroTZVector("v", allocator, "UTC");
         TimeStampMicroTZVector paris = new TimeStampMicroTZVector("v", allocator, "Europe/Paris")) {
      i.setValueCount(0);
      l.setValueCount(0);
      b.allocateNew();
      b.setNull(0);
      b.setNull(1);
      b.setValueCount(2);
      utc.setValueCount(0);
      paris.setValueCount(0);
      assertFalse(ArrayEquals.equals(i, l), "int vs bigint, even empty");
      assertFalse(ArrayEquals.equals(s, b), "utf8 vs binary");
      assertFalse(ArrayEquals.equals(n2, s), "a NullVector equals only a NullVector");
      assertFalse(ArrayEquals.equals(s, n2));
      assertTrue(ArrayEquals.equals(n2, n2b));
      assertFalse(ArrayEquals.equals(n2, n3), "lengths differ");
      assertTrue(ArrayEquals.rangeEquals(n2, 1, n3, 2, 1, ArrayEquals.Options.DEFAULT));
      assertFalse(ArrayEquals.equals(utc, paris), "time zones are part of the type");
    }
  }

  @Test
  void lengthsMustMatch() {
    try (VarCharVector a = namedStrings(allocator, "v", FieldType.nullable(ArrowType.Utf8.INSTANCE), "x", "y");
         VarCharVector b = namedStrings(allocator, "v", FieldType.nullable(ArrowType.Utf8.INSTANCE), "x", "y", "z")) {
      assertFalse(ArrayEquals.equals(a, b));
      assertTrue(ArrayEquals.rangeEquals(a, 0, b, 0, 2, ArrayEquals.Options.DEFAULT));
    }
  }

  @Test
  void floatsFollowTheOptions() {
    double otherNaN = Double.longBitsToDouble(0x7ff8000000000abcL);
    try (Float8Vector nan = doubles("v", 1, Double.NaN); Float8Vector nan2 = doubles("v", 1, otherNaN);
         Float8Vector zero = doubles("v", 0.0); Float8Vector negZero = doubles("v", -0.0)) {
      assertFalse(ArrayEquals.equals(nan, nan), "NaN never equals NaN by default, even itself");
      assertTrue(ArrayEquals.equals(nan, nan2, NANS_EQUAL), "any payloads with nansEqual");
      assertTrue(ArrayEquals.equals(zero, negZero), "-0.0 equals 0.0 by default");
      assertFalse(ArrayEquals.equals(zero, negZero, ZEROS_DIFFER));
      assertTrue(ArrayEquals.equals(negZero, negZero, ZEROS_DIFFER));
    }
    try (Float4Vector a = new Float4Vector("v", allocator); Float4Vector b = new Float4Vector("v", allocator);
         Float2Vector c = new Float2Vector("v", allocator); Float2Vector d = new Float2Vector("v", allocator)) {
      a.allocateNew(2);
      b.allocateNew(2);
      a.set(0, -0f);
      b.set(0, 0f);
      a.set(1, Float.NaN);
      b.set(1, Float.intBitsToFloat(0xffc00001));
      a.setValueCount(2);
      b.setValueCount(2);
      assertFalse(ArrayEquals.equals(a, b));
      assertTrue(ArrayEquals.equals(a, b, NANS_EQUAL));
      assertFalse(ArrayEquals.equals(a, b, new ArrayEquals.Options(true, false)));
      c.allocateNew(2);
      d.allocateNew(2);
      c.set(0, (short) 0x8000);
      d.set(0, (short) 0x0000);
      c.set(1, (short) 0x7e00);
      d.set(1, (short) 0x7c01);
      c.setValueCount(2);
      d.setValueCount(2);
      assertFalse(ArrayEquals.equals(c, d));
      assertTrue(ArrayEquals.equals(c, d, NANS_EQUAL));
      assertFalse(ArrayEquals.equals(c, d, new ArrayEquals.Options(true, false)));
    }
  }

  @Test
  void validityMustMatchAndPayloadsUnderNullsAreIgnored() {
    try (BitVector a = new BitVector("v", allocator); BitVector b = new BitVector("v", allocator)) {
      a.allocateNew(70);
      b.allocateNew(70);
      for (int i = 0; i < 70; i++) {
        a.set(i, i % 3 == 0 ? 1 : 0);
        b.set(i, i % 3 == 0 ? 1 : 0);
      }
      a.set(5, 1);
      a.setNull(5); // 1 under the null on the left, 0 on the right
      b.setNull(5);
      a.setValueCount(70);
      b.setValueCount(70);
      assertTrue(ArrayEquals.equals(a, b));
      b.set(5, 0);
      assertFalse(ArrayEquals.equals(a, b), "null vs valid");
      b.setNull(5);
      b.set(68, 1);
      assertFalse(ArrayEquals.equals(a, b), "value differs in the last word");
    }
  }

  @Test
  void nestedValuesCompareInnerValidityAndFloatRules() {
    try (StructVector a = StructVector.empty("s", allocator); StructVector b = StructVector.empty("t", allocator)) {
      for (StructVector s : new StructVector[] {a, b}) {
        Float8Vector x = s.addOrGet("x", FieldType.nullable(Types.MinorType.FLOAT8.getType()), Float8Vector.class);
        s.allocateNew();
        x.allocateNew(3);
        x.set(0, s == a ? -0.0 : 0.0);
        x.set(1, 1.0);
        x.setNull(2);
        x.setValueCount(3);
        s.setIndexDefined(0);
        s.setIndexDefined(1);
        s.setIndexDefined(2);
        s.setValueCount(3);
      }
      assertTrue(ArrayEquals.equals(a, b));
      assertFalse(ArrayEquals.equals(a, b, ZEROS_DIFFER));
      ((Float8Vector) b.getChild("x")).set(2, 1.0);
      assertFalse(ArrayEquals.equals(a, b), "inner null vs inner value");
      b.setNull(2);
      a.setNull(2);
      assertTrue(ArrayEquals.equals(a, b), "the difference now sits under a null parent");
    }
    try (ListVector a = ListVector.empty("l", allocator); ListVector b = ListVector.empty("l", allocator)) {
      for (ListVector l : new ListVector[] {a, b}) {
        l.addOrGetVector(FieldType.nullable(Types.MinorType.FLOAT8.getType()));
        l.allocateNew();
        Float8Vector items = (Float8Vector) l.getDataVector();
        int start = l.startNewValue(0);
        items.setSafe(start, Double.NaN);
        items.setSafe(start + 1, 2.0);
        l.endValue(0, 2);
        l.setValueCount(1);
      }
      assertFalse(ArrayEquals.equals(a, b));
      assertTrue(ArrayEquals.equals(a, b, NANS_EQUAL));
    }
  }

  @Test
  void argumentsAreChecked() {
    try (VarCharVector a = namedStrings(allocator, "v", FieldType.nullable(ArrowType.Utf8.INSTANCE), "x", "y")) {
      assertThrows(IndexOutOfBoundsException.class,
          () -> ArrayEquals.rangeEquals(a, 1, a, 0, 2, ArrayEquals.Options.DEFAULT));
      assertThrows(IndexOutOfBoundsException.class,
          () -> ArrayEquals.rangeEquals(a, -1, a, 0, 1, ArrayEquals.Options.DEFAULT));
      assertThrows(IndexOutOfBoundsException.class,
          () -> ArrayEquals.rangeEquals(a, 0, a, 0, -1, ArrayEquals.Options.DEFAULT));
      assertTrue(ArrayEquals.rangeEquals(a, 2, a, 0, 0, ArrayEquals.Options.DEFAULT));
      assertThrows(IllegalArgumentException.class, () -> ArrayEquals.equals(a, null));
      assertThrows(IllegalArgumentException.class, () -> ArrayEquals.equals(a, a, null));
    }
    try (UnionVector u = UnionVector.empty("u", allocator)) {
      u.setValueCount(0);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ArrayEquals.equals(u, u));
      assertTrue(e.getMessage().contains("not supported"), e.getMessage());
    }
    assertEquals(new ArrayEquals.Options(false, true), ArrayEquals.Options.DEFAULT);
  }
}
