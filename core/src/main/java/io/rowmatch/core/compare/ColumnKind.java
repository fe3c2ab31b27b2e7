package io.rowmatch.core.compare;

import java.util.List;

import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The physical layout family of a column, resolved once at build. Kernels switch on these int tags
 * (a tableswitch the JIT inlines) instead of calling through a per-column interface.
 */
public final class ColumnKind {
  private ColumnKind() {}

  /** {@code NullVector}: every row is null, there are no buffers. */
  public static final int NULL = 0;
  /** One bit per value (BitVector). */
  public static final int BIT = 1;
  public static final int FIXED1 = 2;
  public static final int FIXED2 = 3;
  public static final int FIXED4 = 4;
  public static final int FIXED8 = 5;
  /** Decimal, IntervalMonthDayNano. */
  public static final int FIXED16 = 6;
  /** Any other fixed byte width (Decimal256, FixedSizeBinary): compared as bytes. */
  public static final int FIXED_BYTES = 7;
  public static final int FLOAT16 = 8;
  public static final int FLOAT32 = 9;
  public static final int FLOAT64 = 10;
  /** 32-bit offsets + data (VarChar, VarBinary). */
  public static final int VAR32 = 11;
  /** 64-bit offsets + data (LargeVarChar, LargeVarBinary). */
  public static final int VAR64 = 12;
  /** 16-byte views + data buffers (ViewVarChar, ViewVarBinary). */
  public static final int VIEW = 13;
  public static final int STRUCT = 14;
  /** 32-bit offsets into one child (List, Map). */
  public static final int LIST32 = 15;
  /** 64-bit offsets into one child (LargeList). */
  public static final int LIST64 = 16;
  public static final int FIXED_LIST = 17;

  /**
   * The kind of a vector, or an {@link IllegalArgumentException} naming the column and its type when
   * Rowmatch does not support it.
   */
  public static int of(ValueVector vector, String column) {
    switch (vector.getMinorType()) {
      case NULL:
        return NULL;
      case BIT:
        return BIT;
      case TINYINT:
      case UINT1:
        return FIXED1;
      case SMALLINT:
      case UINT2:
        return FIXED2;
      case INT:
      case UINT4:
      case DATEDAY:
      case TIMESEC:
      case TIMEMILLI:
      case INTERVALYEAR:
        return FIXED4;
      case BIGINT:
      case UINT8:
      case DATEMILLI:
      case TIMEMICRO:
      case TIMENANO:
      case TIMESTAMPSEC:
      case TIMESTAMPMILLI:
      case TIMESTAMPMICRO:
      case TIMESTAMPNANO:
      case TIMESTAMPSECTZ:
      case TIMESTAMPMILLITZ:
      case TIMESTAMPMICROTZ:
      case TIMESTAMPNANOTZ:
      case DURATION:
      case INTERVALDAY:
        return FIXED8;
      case DECIMAL:
      case INTERVALMONTHDAYNANO:
        return FIXED16;
      case DECIMAL256:
      case FIXEDSIZEBINARY:
        return FIXED_BYTES;
      case FLOAT2:
        return FLOAT16;
      case FLOAT4:
        return FLOAT32;
      case FLOAT8:
        return FLOAT64;
      case VARCHAR:
      case VARBINARY:
        return VAR32;
      case LARGEVARCHAR:
      case LARGEVARBINARY:
        return VAR64;
      case VIEWVARCHAR:
      case VIEWVARBINARY:
        return VIEW;
      case STRUCT:
        return STRUCT;
      case LIST:
      case MAP:
        return LIST32;
      case LARGELIST:
        return LIST64;
      case FIXED_SIZE_LIST:
        return FIXED_LIST;
      default:
        throw new IllegalArgumentException(
            column + ": type " + vector.getField().getType() + " (" + vector.getMinorType()
                + ", " + vector.getClass().getSimpleName() + ") is not supported by Rowmatch");
    }
  }

  /** True for the kinds whose values are floating point (NaN and signed-zero rules apply). */
  public static boolean isFloat(int kind) {
    return kind == FLOAT16 || kind == FLOAT32 || kind == FLOAT64;
  }

  /** True for kinds with child columns. */
  public static boolean isNested(int kind) {
    return kind == STRUCT || kind == LIST32 || kind == LIST64 || kind == FIXED_LIST;
  }

  /**
   * Arrow type equality that ignores field names, nullability and metadata, recursively. With
   * {@code nullMatchesAny}, a Null type on either side (a column of nulls) matches any type, as the row
   * comparator allows; whole-array equality wants the strict form.
   */
  public static boolean sameType(Field left, Field right, boolean nullMatchesAny) {
    ArrowType lt = left.getType();
    ArrowType rt = right.getType();
    if (nullMatchesAny && (lt instanceof ArrowType.Null || rt instanceof ArrowType.Null)) {
      return true;
    }
    if (!lt.equals(rt)) {
      return false;
    }
    List<Field> lc = left.getChildren();
    List<Field> rc = right.getChildren();
    if (lc.size() != rc.size()) {
      return false;
    }
    for (int i = 0; i < lc.size(); i++) {
      if (!sameType(lc.get(i), rc.get(i), nullMatchesAny)) {
        return false;
      }
    }
    return true;
  }

  /** A short type description for messages: the Arrow type, with children. */
  public static String describe(Field field) {
    if (field.getChildren().isEmpty()) {
      return field.getType().toString();
    }
    StringBuilder sb = new StringBuilder(field.getType().toString()).append('<');
    for (int i = 0; i < field.getChildren().size(); i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(describe(field.getChildren().get(i)));
    }
    return sb.append('>').toString();
  }
}
