package io.rowmatch.core.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The one list of every type the core supports (row equality, hashing, key tables), nested shapes
 * included, plus the small field builders tests use. A test that loops over "every type" loops over
 * {@link #all()}; a test that needs one shape names it with {@link #named}.
 */
public final class SupportedTypes {
  private SupportedTypes() {}

  /** Every supported type, each under a distinct name. */
  public static List<Field> all() {
    List<Field> f = new ArrayList<>();
    f.add(leaf("bool", ArrowType.Bool.INSTANCE));
    for (int bits : new int[] {8, 16, 32, 64}) {
      f.add(leaf("int" + bits, new ArrowType.Int(bits, true)));
      f.add(leaf("uint" + bits, new ArrowType.Int(bits, false)));
    }
    f.add(leaf("half", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)));
    f.add(leaf("float", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)));
    f.add(leaf("double", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)));
    f.add(leaf("dec128", new ArrowType.Decimal(10, 2, 128)));
    f.add(leaf("dec256", new ArrowType.Decimal(40, 5, 256)));
    f.add(leaf("dateday", new ArrowType.Date(DateUnit.DAY)));
    f.add(leaf("datemilli", new ArrowType.Date(DateUnit.MILLISECOND)));
    f.add(leaf("timesec", new ArrowType.Time(TimeUnit.SECOND, 32)));
    f.add(leaf("timemilli", new ArrowType.Time(TimeUnit.MILLISECOND, 32)));
    f.add(leaf("timemicro", new ArrowType.Time(TimeUnit.MICROSECOND, 64)));
    f.add(leaf("timenano", new ArrowType.Time(TimeUnit.NANOSECOND, 64)));
    for (TimeUnit unit : TimeUnit.values()) {
      f.add(leaf("ts_" + unit, new ArrowType.Timestamp(unit, null)));
      f.add(leaf("tstz_" + unit, new ArrowType.Timestamp(unit, "UTC")));
    }
    f.add(leaf("duration", new ArrowType.Duration(TimeUnit.MICROSECOND)));
    f.add(leaf("ivday", new ArrowType.Interval(IntervalUnit.DAY_TIME)));
    f.add(leaf("ivyear", new ArrowType.Interval(IntervalUnit.YEAR_MONTH)));
    f.add(leaf("ivmdn", new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO)));
    f.add(leaf("fsb", new ArrowType.FixedSizeBinary(5)));
    f.add(leaf("fsb3", new ArrowType.FixedSizeBinary(3)));
    f.add(utf8("utf8"));
    f.add(leaf("lutf8", ArrowType.LargeUtf8.INSTANCE));
    f.add(leaf("bin", ArrowType.Binary.INSTANCE));
    f.add(leaf("lbin", ArrowType.LargeBinary.INSTANCE));
    f.add(leaf("utf8view", ArrowType.Utf8View.INSTANCE));
    f.add(leaf("binview", ArrowType.BinaryView.INSTANCE));
    f.add(leaf("null", ArrowType.Null.INSTANCE));
    f.add(nested("struct", ArrowType.Struct.INSTANCE, leaf("a", new ArrowType.Int(32, true)), utf8("b"),
        leaf("c", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
    f.add(nested("list", ArrowType.List.INSTANCE, leaf("item", new ArrowType.Int(32, true))));
    f.add(nested("list_double", ArrowType.List.INSTANCE,
        leaf("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
    f.add(nested("llist", ArrowType.LargeList.INSTANCE,
        leaf("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
    f.add(nested("llist_int", ArrowType.LargeList.INSTANCE, leaf("item", new ArrowType.Int(32, true))));
    f.add(nested("fslist", new ArrowType.FixedSizeList(2), utf8("item")));
    f.add(nested("fslist_int", new ArrowType.FixedSizeList(2), leaf("item", new ArrowType.Int(32, true))));
    f.add(nested("liststruct", ArrowType.List.INSTANCE,
        nested("item", ArrowType.Struct.INSTANCE, leaf("x", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            leaf("y", ArrowType.Utf8View.INSTANCE))));
    f.add(map("map"));
    return f;
  }

  /** {@code n} fields of {@link #all()} drawn at random, repeats allowed: a random multi-column key. */
  public static List<Field> pick(Random rnd, int n) {
    List<Field> all = all();
    List<Field> key = new ArrayList<>(n);
    for (int c = 0; c < n; c++) {
      key.add(all.get(rnd.nextInt(all.size())));
    }
    return key;
  }

  /** The field of {@link #all()} called {@code name}. */
  public static Field named(String name) {
    return all().stream().filter(f -> f.getName().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no supported type named " + name));
  }

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

  /** map&lt;utf8, int64&gt;: non-null keys, nullable values. */
  public static Field map(String name) {
    Field key = new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null);
    Field value = leaf("value", new ArrowType.Int(64, true));
    Field entries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(key, value));
    return new Field(name, FieldType.nullable(new ArrowType.Map(false)), List.of(entries));
  }
}
