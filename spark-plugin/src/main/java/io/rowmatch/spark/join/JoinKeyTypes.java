package io.rowmatch.spark.join;

import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import io.rowmatch.spark.aggregate.AggregatePlanner;
import io.rowmatch.spark.arrow.ArrowSchemas;

/**
 * Which Spark types a RowmatchHashJoin can compare as keys and carry as columns.
 *
 * <p>Keys: the atomic types the aggregate accepts, and structs and arrays of them (nested at any depth). For
 * those, Spark's join equality is the core's: Spark's hash joins compare the keys' UnsafeRow bytes and its sort-merge join their
 * ordering, and both treat a null field or element as equal to a null field or element, compare arrays by
 * length then element by element, and never match a top-level null key; that is the core's nested rule.
 * Floating-point values (at any depth) only compare alike once Spark's optimizer has normalized them
 * (NaN to one NaN, -0.0 to 0.0), which the planner checks separately. Maps are never join keys in Spark;
 * null-typed values are refused rather than reasoned about.
 */
final class JoinKeyTypes {
  private JoinKeyTypes() {}

  /** Why values of this type cannot be a join key, or null when they can. */
  static String keyReason(DataType t) {
    if (t instanceof NullType) {
      return "null-typed keys are not supported";
    }
    if (t instanceof StructType s) {
      for (StructField f : s.fields()) {
        String why = keyReason(f.dataType());
        if (why != null) {
          return why;
        }
      }
      return null;
    }
    if (t instanceof ArrayType a) {
      return keyReason(a.elementType());
    }
    if (t instanceof MapType) {
      return "map keys are not supported";
    }
    return AggregatePlanner.keyTypeReason(t);
  }

  /** Why a column of this type cannot pass through a join (copied from input to output), or null. */
  static String columnReason(DataType t) {
    if (containsNullType(t)) {
      return "null-typed columns are not supported";
    }
    return ArrowSchemas.unsupportedReason(t);
  }

  /** True when a float or double appears anywhere in the type. */
  static boolean containsFloating(DataType t) {
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
}
