package io.rowmatch.core.testutil;

import java.util.List;

import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/** Key fields of every kind the comparator supports, for random tests. */
public final class KeyTypes {
  private KeyTypes() {}

  public static Field leaf(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  public static Field nested(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.nullable(type), List.of(children));
  }

  public static Field bigint(String name) {
    return leaf(name, new ArrowType.Int(64, true));
  }

  public static Field utf8(String name) {
    return leaf(name, ArrowType.Utf8.INSTANCE);
  }

  public static Field map(String name) {
    Field key = new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null);
    Field value = leaf("value", new ArrowType.Int(32, true));
    Field entries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(key, value));
    return new Field(name, FieldType.nullable(new ArrowType.Map(false)), List.of(entries));
  }

  public static List<Field> all() {
    return List.of(
        leaf("i32", new ArrowType.Int(32, true)),
        bigint("i64"),
        leaf("i16", new ArrowType.Int(16, true)),
        leaf("i8", new ArrowType.Int(8, true)),
        leaf("bit", ArrowType.Bool.INSTANCE),
        leaf("f16", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)),
        leaf("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
        leaf("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
        leaf("dec", new ArrowType.Decimal(10, 2, 128)),
        leaf("fsb", new ArrowType.FixedSizeBinary(3)),
        utf8("utf8"),
        leaf("bin", ArrowType.Binary.INSTANCE),
        leaf("lutf8", ArrowType.LargeUtf8.INSTANCE),
        leaf("vutf8", ArrowType.Utf8View.INSTANCE),
        nested("struct", ArrowType.Struct.INSTANCE, leaf("a", new ArrowType.Int(32, true)), utf8("b")),
        nested("list", ArrowType.List.INSTANCE,
            leaf("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))),
        nested("llist", ArrowType.LargeList.INSTANCE, leaf("item", new ArrowType.Int(32, true))),
        nested("fsl", new ArrowType.FixedSizeList(2), leaf("item", new ArrowType.Int(32, true))),
        map("map"),
        leaf("null", ArrowType.Null.INSTANCE));
  }
}
