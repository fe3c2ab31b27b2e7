package io.rowmatch.spark.types;

import java.util.EnumSet;
import java.util.Set;

import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
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

/**
 * The one table of which Spark types Rowmatch supports in which role, each refusal with its reason. Every
 * planner asks here; TypeSupportTest enumerates Spark's types against every rule and checks the README's
 * types table against {@link #describe}.
 *
 * <p>Atomic types are rows of {@link Atomic}, with the roles they may take. Nested types (struct, array, map)
 * follow per role: an Arrow column may nest anything that is itself an Arrow column; group keys and join keys
 * may be structs and arrays of keys (the core compares them element by element, inner nulls equal, as
 * Spark's binary rows do); maps are never keys (Spark does not group or join on them); the shuffle carries
 * flat columns only.
 */
public final class TypeSupport {
  private TypeSupport() {}

  /** The roles a type can take. */
  public enum Role {
    /** A column of our Arrow batches: its round trip through ArrowWriter and ArrowColumnVector is exact. */
    ARROW_COLUMN,
    /** A grouping key of an aggregation or dedup. */
    GROUP_KEY,
    /** An equi-join key. */
    JOIN_KEY,
    /** A column of the Arrow shuffle's records. */
    SHUFFLE_COLUMN
  }

  /** The atomic types, each with its roles. Strings are keys only under a collation that compares bytes. */
  enum Atomic {
    BOOLEAN(BooleanType.class, EnumSet.allOf(Role.class)),
    BYTE(ByteType.class, EnumSet.allOf(Role.class)),
    SHORT(ShortType.class, EnumSet.allOf(Role.class)),
    INT(IntegerType.class, EnumSet.allOf(Role.class)),
    LONG(LongType.class, EnumSet.allOf(Role.class)),
    FLOAT(FloatType.class, EnumSet.allOf(Role.class)),
    DOUBLE(DoubleType.class, EnumSet.allOf(Role.class)),
    DECIMAL(DecimalType.class, EnumSet.allOf(Role.class)),
    STRING(StringType.class, EnumSet.allOf(Role.class)),
    BINARY(BinaryType.class, EnumSet.allOf(Role.class)),
    DATE(DateType.class, EnumSet.allOf(Role.class)),
    TIMESTAMP(TimestampType.class, EnumSet.allOf(Role.class)),
    TIMESTAMP_NTZ(TimestampNTZType.class, EnumSet.allOf(Role.class)),
    /** Join keys refuse it rather than reason about a key that is always null. */
    NULL(NullType.class, EnumSet.of(Role.ARROW_COLUMN, Role.GROUP_KEY, Role.SHUFFLE_COLUMN));

    final Class<? extends DataType> type;
    final Set<Role> roles;

    Atomic(Class<? extends DataType> type, Set<Role> roles) {
      this.type = type;
      this.roles = roles;
    }

    static Atomic of(DataType t) {
      for (Atomic a : values()) {
        if (a.type.isInstance(t)) {
          return a;
        }
      }
      return null;
    }
  }

  /** Why values of this type cannot be a column of our Arrow batches, or null when they can. */
  public static String arrowColumnReason(DataType t) {
    Atomic a = Atomic.of(t);
    if (a != null) {
      return null;
    }
    if (t instanceof ArrayType at) {
      return arrowColumnReason(at.elementType());
    }
    if (t instanceof MapType m) {
      String k = arrowColumnReason(m.keyType());
      return k != null ? k : arrowColumnReason(m.valueType());
    }
    if (t instanceof StructType s) {
      for (StructField f : s.fields()) {
        String r = arrowColumnReason(f.dataType());
        if (r != null) {
          return r;
        }
      }
      return null;
    }
    return "type " + t.simpleString() + " is not converted to Arrow";
  }

  /** Why values of this type cannot be a group key, or null when they can. */
  public static String groupKeyReason(DataType t) {
    return keyReason(t, Role.GROUP_KEY);
  }

  /** Why values of this type cannot be an equi-join key, or null when they can. */
  public static String joinKeyReason(DataType t) {
    return keyReason(t, Role.JOIN_KEY);
  }

  /** Why a column of this type cannot pass through a join (copied from input to output), or null. */
  public static String joinColumnReason(DataType t) {
    if (containsNullType(t)) {
      return "null-typed columns are not supported";
    }
    return arrowColumnReason(t);
  }

  /** Why a column of this type cannot travel in the Arrow shuffle's records, or null. */
  public static String shuffleColumnReason(DataType t) {
    Atomic a = Atomic.of(t);
    if (a != null && a.roles.contains(Role.SHUFFLE_COLUMN)) {
      return null;
    }
    return "type " + t.simpleString() + " is not supported by the Arrow shuffle (only flat atomic types are)";
  }

  private static String keyReason(DataType t, Role role) {
    if (t instanceof StructType s) {
      for (StructField f : s.fields()) {
        String why = keyReason(f.dataType(), role);
        if (why != null) {
          return why;
        }
      }
      return null;
    }
    if (t instanceof ArrayType a) {
      return keyReason(a.elementType(), role);
    }
    if (t instanceof MapType && role == Role.JOIN_KEY) {
      return "map keys are not supported";
    }
    Atomic a = Atomic.of(t);
    if (a == null) {
      return "key type " + t.simpleString() + " is not supported";
    }
    if (!a.roles.contains(role)) {
      return a == Atomic.NULL ? "null-typed keys are not supported" : "key type " + t.simpleString() + " is not supported";
    }
    if (t instanceof StringType s && !s.supportsBinaryEquality()) {
      return "collation " + s.collationName() + " does not compare bytes";
    }
    return null;
  }

  /**
   * A float or double anywhere in the type: such keys compare alike only once Spark's optimizer normalized
   * them (NaN to one NaN, -0.0 to 0.0), which the planners check.
   */
  public static boolean containsFloating(DataType t) {
    if (t instanceof FloatType || t instanceof DoubleType) {
      return true;
    }
    if (t instanceof StructType s) {
      for (StructField f : s.fields()) {
        if (containsFloating(f.dataType())) {
          return true;
        }
      }
      return false;
    }
    if (t instanceof ArrayType a) {
      return containsFloating(a.elementType());
    }
    if (t instanceof MapType m) {
      return containsFloating(m.keyType()) || containsFloating(m.valueType());
    }
    return false;
  }

  private static boolean containsNullType(DataType t) {
    if (t instanceof NullType) {
      return true;
    }
    if (t instanceof StructType s) {
      for (StructField f : s.fields()) {
        if (containsNullType(f.dataType())) {
          return true;
        }
      }
      return false;
    }
    if (t instanceof ArrayType a) {
      return containsNullType(a.elementType());
    }
    if (t instanceof MapType m) {
      return containsNullType(m.keyType()) || containsNullType(m.valueType());
    }
    return false;
  }

  /**
   * The README's types table, generated from {@link Atomic} (TypeSupportTest checks the README holds it):
   * one row per atomic type, a column per role.
   */
  public static String describe() {
    StringBuilder b = new StringBuilder("| Spark type | Arrow column | group key | join key | shuffle column |\n");
    b.append("|---|---|---|---|---|\n");
    for (Atomic a : Atomic.values()) {
      b.append("| ").append(a.type.getSimpleName().replace("$", "").replace("Type", "")).append(" |");
      for (Role r : Role.values()) {
        String mark = a.roles.contains(r) ? "yes" : "no";
        if (a == Atomic.STRING && (r == Role.GROUP_KEY || r == Role.JOIN_KEY)) {
          mark = "binary collations";
        }
        b.append(' ').append(mark).append(" |");
      }
      b.append('\n');
    }
    b.append("| struct, array | of Arrow columns | of group keys | of join keys | no |\n");
    b.append("| map | of Arrow columns | no | no | no |\n");
    return b.toString();
  }
}
