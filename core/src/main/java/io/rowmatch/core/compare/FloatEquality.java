package io.rowmatch.core.compare;

/**
 * The float rules shared by every kernel: -0.0 equals 0.0, NaN never equals a number, and NaN equals
 * NaN (any payload) exactly when {@code nansEqual}.
 */
public final class FloatEquality {
  private FloatEquality() {}

  public static boolean equal64(double a, double b, boolean nansEqual) {
    // == already says -0.0 == 0.0 and NaN != anything.
    return a == b || (nansEqual && a != a && b != b);
  }

  public static boolean equal32(float a, float b, boolean nansEqual) {
    return a == b || (nansEqual && a != a && b != b);
  }

  /** IEEE half precision, as raw bits. */
  public static boolean equal16(short a, short b, boolean nansEqual) {
    boolean aNaN = isNaN16(a);
    boolean bNaN = isNaN16(b);
    if (aNaN || bNaN) {
      return nansEqual && aNaN && bNaN;
    }
    return a == b || ((a | b) & 0x7fff) == 0;
  }

  /**
   * Whole-array equality's float rules (Arrow C++ EqualOptions): as above, except that with
   * {@code signedZerosEqual == false} -0.0 and 0.0 differ.
   */
  public static boolean equal64(double a, double b, boolean nansEqual, boolean signedZerosEqual) {
    if (a == b) {
      // Only zeros compare == with different bits (NaNs never do).
      return signedZerosEqual || Double.doubleToRawLongBits(a) == Double.doubleToRawLongBits(b);
    }
    return nansEqual && a != a && b != b;
  }

  public static boolean equal32(float a, float b, boolean nansEqual, boolean signedZerosEqual) {
    if (a == b) {
      return signedZerosEqual || Float.floatToRawIntBits(a) == Float.floatToRawIntBits(b);
    }
    return nansEqual && a != a && b != b;
  }

  public static boolean equal16(short a, short b, boolean nansEqual, boolean signedZerosEqual) {
    boolean aNaN = isNaN16(a);
    boolean bNaN = isNaN16(b);
    if (aNaN || bNaN) {
      return nansEqual && aNaN && bNaN;
    }
    return a == b || (signedZerosEqual && ((a | b) & 0x7fff) == 0);
  }

  public static boolean isNaN16(short bits) {
    return (bits & 0x7c00) == 0x7c00 && (bits & 0x03ff) != 0;
  }
}
