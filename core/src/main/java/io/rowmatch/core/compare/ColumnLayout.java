package io.rowmatch.core.compare;

import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthViewVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

import io.rowmatch.core.MalformedVectorException;

/**
 * One side of one column, read off its vector once: the kind, the buffers' addresses and capacities,
 * and the children. Building it is O(1) per column (plus its children) and copies no values; every
 * capacity the kernels rely on is checked here, so the hot loops only check row indices and, for
 * variable-width values, each value's own offsets.
 *
 * <p>The layout does not own its buffers: whoever keeps it past the vector's lifetime retains
 * {@link #buffers()} and releases them when done.
 */
public final class ColumnLayout {
  /** Size of one view entry of a view vector, and the longest value stored inline in it. */
  public static final int VIEW_SIZE = 16;
  public static final int VIEW_INLINE = 12;

  /** For messages: e.g. "column 2 (left)" or "column 2 (left).items". */
  public final String name;
  public final int kind;
  public final int valueCount;
  /** Bytes per value for fixed-width kinds; elements per list for {@link ColumnKind#FIXED_LIST}. */
  public final int width;
  /** Address of the validity bitmap, or 0 when the vector has none (every value valid). */
  public final long validity;
  /** True for a {@code NullVector}: every value is null, whatever else is said. */
  public final boolean allNull;
  /** Address and capacity of the value bytes (fixed width, variable-width data). */
  public final long data;
  public final long dataCapacity;
  /** Address of the offsets (variable width, lists) or of the view entries (views). */
  public final long offsets;
  /** View vectors: address and capacity of each data buffer a view may point into. */
  public final long[] viewBuffers;
  public final long[] viewBufferCapacities;
  public final ColumnLayout[] children;
  private final ArrowBuf[] ownBuffers;

  private ColumnLayout(String name, int kind, int valueCount, int width, long validity, boolean allNull,
      long data, long dataCapacity, long offsets, long[] viewBuffers, long[] viewBufferCapacities,
      ColumnLayout[] children, ArrowBuf[] ownBuffers) {
    this.name = name;
    this.kind = kind;
    this.valueCount = valueCount;
    this.width = width;
    this.validity = validity;
    this.allNull = allNull;
    this.data = data;
    this.dataCapacity = dataCapacity;
    this.offsets = offsets;
    this.viewBuffers = viewBuffers;
    this.viewBufferCapacities = viewBufferCapacities;
    this.children = children;
    this.ownBuffers = ownBuffers;
  }

  /** Reads the layout of {@code vector}; {@code name} names it in every message. */
  public static ColumnLayout of(ValueVector vector, String name) {
    int kind = ColumnKind.of(vector, name);
    int count = vector.getValueCount();
    if (count < 0) {
      throw malformed(name, "negative value count " + count);
    }
    if (kind == ColumnKind.NULL) {
      return new ColumnLayout(name, kind, count, 0, 0, true, 0, 0, 0, null, null, new ColumnLayout[0],
          new ArrowBuf[0]);
    }
    ArrowBuf validityBuf = vector.getValidityBuffer();
    long validity = validityAddress(validityBuf, count, name);
    switch (kind) {
      case ColumnKind.BIT: {
        ArrowBuf dataBuf = ((BitVector) vector).getDataBuffer();
        requireCapacity(dataBuf, bitmapBytes(count), "data", name);
        return leaf(name, kind, count, 1, validity, dataBuf, 0, validityBuf, dataBuf);
      }
      case ColumnKind.FIXED1:
      case ColumnKind.FIXED2:
      case ColumnKind.FIXED4:
      case ColumnKind.FIXED8:
      case ColumnKind.FIXED16:
      case ColumnKind.FIXED_BYTES:
      case ColumnKind.FLOAT16:
      case ColumnKind.FLOAT32:
      case ColumnKind.FLOAT64: {
        BaseFixedWidthVector fixed = (BaseFixedWidthVector) vector;
        int width = fixed.getTypeWidth();
        ArrowBuf dataBuf = fixed.getDataBuffer();
        requireCapacity(dataBuf, (long) count * width, "data", name);
        return leaf(name, kind, count, width, validity, dataBuf, 0, validityBuf, dataBuf);
      }
      case ColumnKind.VAR32: {
        BaseVariableWidthVector var = (BaseVariableWidthVector) vector;
        ArrowBuf offsetBuf = var.getOffsetBuffer();
        ArrowBuf dataBuf = var.getDataBuffer();
        requireCapacity(offsetBuf, count == 0 ? 0 : (count + 1L) * 4, "offsets", name);
        return leaf(name, kind, count, 0, validity, dataBuf, offsetBuf.memoryAddress(), validityBuf,
            dataBuf, offsetBuf);
      }
      case ColumnKind.VAR64: {
        BaseLargeVariableWidthVector var = (BaseLargeVariableWidthVector) vector;
        ArrowBuf offsetBuf = var.getOffsetBuffer();
        ArrowBuf dataBuf = var.getDataBuffer();
        requireCapacity(offsetBuf, count == 0 ? 0 : (count + 1L) * 8, "offsets", name);
        return leaf(name, kind, count, 0, validity, dataBuf, offsetBuf.memoryAddress(), validityBuf,
            dataBuf, offsetBuf);
      }
      case ColumnKind.VIEW:
        return view((BaseVariableWidthViewVector) vector, name, count, validity, validityBuf);
      case ColumnKind.STRUCT: {
        StructVector struct = (StructVector) vector;
        List<ValueVector> kids = new ArrayList<>(struct.getChildrenFromFields());
        ColumnLayout[] children = new ColumnLayout[kids.size()];
        for (int i = 0; i < children.length; i++) {
          ValueVector kid = kids.get(i);
          children[i] = of(kid, name + "." + kid.getName());
          if (children[i].valueCount < count) {
            throw malformed(name, "child '" + kid.getName() + "' holds " + children[i].valueCount
                + " values, fewer than the struct's " + count);
          }
        }
        return new ColumnLayout(name, kind, count, 0, validity, false, 0, 0, 0, null, null, children,
            new ArrowBuf[] {validityBuf});
      }
      case ColumnKind.LIST32:
      case ColumnKind.LIST64: {
        ValueVector dataVector;
        ArrowBuf offsetBuf;
        int offsetWidth;
        if (kind == ColumnKind.LIST32) {
          ListVector list = (ListVector) vector;
          dataVector = list.getDataVector();
          offsetBuf = list.getOffsetBuffer();
          offsetWidth = 4;
        } else {
          LargeListVector list = (LargeListVector) vector;
          dataVector = list.getDataVector();
          offsetBuf = list.getOffsetBuffer();
          offsetWidth = 8;
        }
        requireCapacity(offsetBuf, count == 0 ? 0 : (count + 1L) * offsetWidth, "offsets", name);
        ColumnLayout child = of(dataVector, name + ".items");
        return new ColumnLayout(name, kind, count, 0, validity, false, 0, 0, offsetBuf.memoryAddress(),
            null, null, new ColumnLayout[] {child}, new ArrowBuf[] {validityBuf, offsetBuf});
      }
      case ColumnKind.FIXED_LIST: {
        FixedSizeListVector list = (FixedSizeListVector) vector;
        int size = ((ArrowType.FixedSizeList) vector.getField().getType()).getListSize();
        ColumnLayout child = of(list.getDataVector(), name + ".items");
        if (child.valueCount < (long) count * size) {
          throw malformed(name, "child holds " + child.valueCount + " values, fewer than " + count + " lists of "
              + size);
        }
        return new ColumnLayout(name, kind, count, size, validity, false, 0, 0, 0, null, null,
            new ColumnLayout[] {child}, new ArrowBuf[] {validityBuf});
      }
      default:
        throw new IllegalStateException("unhandled kind " + kind);
    }
  }

  private static ColumnLayout view(BaseVariableWidthViewVector vector, String name, int count, long validity,
      ArrowBuf validityBuf) {
    ArrowBuf viewBuf = vector.getDataBuffer();
    requireCapacity(viewBuf, (long) count * VIEW_SIZE, "views", name);
    List<ArrowBuf> dataBufs = vector.getDataBuffers();
    long[] addresses = new long[dataBufs.size()];
    long[] capacities = new long[dataBufs.size()];
    ArrowBuf[] own = new ArrowBuf[dataBufs.size() + 2];
    own[0] = validityBuf;
    own[1] = viewBuf;
    for (int i = 0; i < addresses.length; i++) {
      ArrowBuf b = dataBufs.get(i);
      addresses[i] = b.memoryAddress();
      capacities[i] = b.capacity();
      own[i + 2] = b;
    }
    return new ColumnLayout(name, ColumnKind.VIEW, count, VIEW_SIZE, validity, false, 0, 0,
        viewBuf.memoryAddress(), addresses, capacities, new ColumnLayout[0], own);
  }

  private static ColumnLayout leaf(String name, int kind, int count, int width, long validity, ArrowBuf dataBuf,
      long offsets, ArrowBuf... own) {
    return new ColumnLayout(name, kind, count, width, validity, false, dataBuf.memoryAddress(),
        dataBuf.capacity(), offsets, null, null, new ColumnLayout[0], own);
  }

  /**
   * The validity bitmap's address. An empty bitmap means "no nulls" (Arrow's absent buffer), a
   * non-empty one too short for the value count is malformed.
   */
  private static long validityAddress(ArrowBuf buf, int count, String name) {
    if (buf == null || buf.capacity() == 0) {
      return 0;
    }
    requireCapacity(buf, bitmapBytes(count), "validity", name);
    return buf.memoryAddress();
  }

  public static long bitmapBytes(long count) {
    return (count + 7) >>> 3;
  }

  private static void requireCapacity(ArrowBuf buf, long needed, String what, String name) {
    long capacity = buf == null ? 0 : buf.capacity();
    if (capacity < needed) {
      throw malformed(name, what + " buffer holds " + capacity + " bytes, " + needed + " needed");
    }
  }

  public static MalformedVectorException malformed(String name, String what) {
    return new MalformedVectorException(name + " is malformed: " + what);
  }

  /** True when the value at {@code row} is valid (not null). {@code row} must be in range. */
  public boolean isValid(int row) {
    return !allNull && (validity == 0 || RawMemory.bit(validity, row));
  }

  /** Every buffer this layout reads, its children's included; retain them to keep the layout alive. */
  public List<ArrowBuf> buffers() {
    List<ArrowBuf> out = new ArrayList<>();
    collect(out);
    return out;
  }

  private void collect(List<ArrowBuf> out) {
    for (ArrowBuf b : ownBuffers) {
      if (b != null) {
        out.add(b);
      }
    }
    for (ColumnLayout c : children) {
      c.collect(out);
    }
  }

  /** The error for a value whose offsets run backwards or past {@code limit} (the bytes or child values). */
  public MalformedVectorException badOffsets(int row, long start, long end, long limit) {
    return malformed(name, "offsets of row " + row + " are [" + start + ", " + end + ") outside [0, " + limit
        + "] or decreasing");
  }
}
