package io.rowmatch.spark.scan;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Set;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.StringLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.spark.sql.execution.datasources.parquet.ParquetDictionary;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

import io.rowmatch.spark.arrow.SparkColumnMemory;

/**
 * Decodes one flat (top-level, not repeated) column chunk's pages into Spark's column vectors, writing what
 * Spark's own {@code VectorizedColumnReader} writes: values, nulls, and for a batch read wholly from dictionary
 * pages the dictionary ids with a {@link ParquetDictionary} (so dictionary-aware consumers keep working). The
 * difference is how: definition levels are decoded for a whole run of rows at once (a page without nulls needs
 * none), the non-null values of the run are then decoded in one loop and spread over the rows, where Spark's
 * reader takes one value at a time through a virtual call whenever nulls are sprinkled.
 *
 * <p>Only the pairs of Parquet and Spark types whose values are stored unchanged are taken ({@link #kindOf}); the
 * caller reads the others, and chunks with other encodings ({@link #ENCODINGS}), with Spark's reader.
 */
final class ParquetChunkDecoder {
  static final int INT = 0;
  static final int LONG = 1;
  static final int FLOAT = 2;
  static final int DOUBLE = 3;
  static final int BINARY = 4;

  /** The encodings of a chunk this decoder reads: PLAIN and dictionary values, RLE levels (BIT_PACKED is listed
   * for the unused repetition levels of flat columns). */
  @SuppressWarnings("deprecation")
  static final Set<Encoding> ENCODINGS = Set.of(Encoding.PLAIN, Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY,
      Encoding.RLE, Encoding.BIT_PACKED);

  private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG_LE = HybridRleDecoder.LONG_LE;

  /**
   * The storage kind for a column of Parquet type {@code d} read as Spark type {@code t} when Spark stores its
   * values unchanged, or -1. Dates and timestamps only when {@code datetimeCorrected} (no calendar rebase).
   */
  static int kindOf(ColumnDescriptor d, DataType t, boolean datetimeCorrected) {
    if (d.getMaxRepetitionLevel() != 0 || d.getMaxDefinitionLevel() > 1) {
      return -1;
    }
    PrimitiveType p = d.getPrimitiveType();
    LogicalTypeAnnotation a = p.getLogicalTypeAnnotation();
    switch (p.getPrimitiveTypeName()) {
      case INT32:
        if (t instanceof IntegerType && (a == null || signedInt(a, 32))) {
          return INT;
        }
        if (t instanceof DateType && a instanceof DateLogicalTypeAnnotation && datetimeCorrected) {
          return INT;
        }
        return sameDecimal(a, t, 1, 9) ? INT : -1;
      case INT64:
        if (t instanceof LongType && (a == null || signedInt(a, 64))) {
          return LONG;
        }
        if (a instanceof TimestampLogicalTypeAnnotation ts && ts.getUnit() == TimeUnit.MICROS && datetimeCorrected
            && (ts.isAdjustedToUTC() ? t instanceof TimestampType : t instanceof TimestampNTZType)) {
          return LONG;
        }
        return sameDecimal(a, t, 10, 18) ? LONG : -1;
      case FLOAT:
        return t instanceof FloatType && a == null ? FLOAT : -1;
      case DOUBLE:
        return t instanceof DoubleType && a == null ? DOUBLE : -1;
      case BINARY:
        if (t instanceof StringType && (a == null || a instanceof StringLogicalTypeAnnotation)) {
          return BINARY;
        }
        return t instanceof BinaryType && a == null ? BINARY : -1;
      default:
        return -1;
    }
  }

  /** Whether a chunk listing {@code encodings} is one this decoder reads. */
  static boolean readsEncodings(Set<Encoding> encodings) {
    return ENCODINGS.containsAll(encodings);
  }

  private static boolean signedInt(LogicalTypeAnnotation a, int bits) {
    return a instanceof IntLogicalTypeAnnotation i && i.isSigned() && i.getBitWidth() == bits;
  }

  private static boolean sameDecimal(LogicalTypeAnnotation a, DataType t, int minPrecision, int maxPrecision) {
    return a instanceof DecimalLogicalTypeAnnotation d && t instanceof DecimalType s
        && d.getPrecision() == s.precision() && d.getScale() == s.scale()
        && d.getPrecision() >= minPrecision && d.getPrecision() <= maxPrecision;
  }

  private final String column;
  private final int kind;
  private final boolean nullable;
  private final PageReader pages;
  private final Dictionary dictionary;
  private final int dictionarySize;
  private final HybridRleDecoder levels;
  private final HybridRleDecoder ids;
  private Object dictionaryValues;

  // The current page.
  private int pageRowsLeft;
  private boolean pageUsesDictionary;
  private byte[] plain;
  private int plainPos;
  private int plainEnd;

  // Per-run scratch, grown to the batch size.
  private int[] defined = new int[0];
  private int[] idScratch = new int[0];
  private int[] intScratch = new int[0];
  private long[] longScratch = new long[0];

  ParquetChunkDecoder(ColumnDescriptor descriptor, int kind, PageReader pages, String file) throws IOException {
    this.column = String.join(".", descriptor.getPath()) + " of " + file;
    this.kind = kind;
    this.nullable = descriptor.getMaxDefinitionLevel() == 1;
    this.pages = pages;
    this.levels = new HybridRleDecoder(column);
    this.ids = new HybridRleDecoder(column);
    DictionaryPage page = pages.readDictionaryPage();
    if (page != null) {
      this.dictionary = page.getEncoding().initDictionary(descriptor, page);
      this.dictionarySize = dictionary.getMaxId() + 1;
    } else {
      this.dictionary = null;
      this.dictionarySize = 0;
    }
  }

  /** Reads the next {@code total} rows into {@code out} (reset, capacity at least {@code total}). */
  void readBatch(int total, WritableColumnVector out) throws IOException {
    grow(total);
    WritableColumnVector idsOut = null;
    int[] idsArray = null; // idsOut's own storage when it is on-heap, written in place
    boolean valuesWritten = false;
    int row = 0;
    while (row < total) {
      if (pageRowsLeft == 0) {
        nextPage();
      }
      int pageEnd = row + Math.min(total - row, pageRowsLeft);
      pageRowsLeft -= pageEnd - row;
      // One run of definition levels at a time: a run of nulls, a run of values, or a packed mix.
      while (row < pageEnd) {
        int n = pageEnd - row;
        int present = n;
        boolean mixed = false;
        if (nullable) {
          n = levels.runLength(n);
          if (levels.repeated()) {
            present = levels.repeatedValue() == 1 ? n : 0;
            levels.skip(n);
          } else {
            levels.read(defined, 0, n);
            present = 0;
            for (int i = 0; i < n; i++) {
              present += defined[i];
            }
            mixed = present != 0 && present != n;
          }
        }
        if (present == 0) {
          out.putNulls(row, n);
          if (idsArray != null && !valuesWritten) {
            Arrays.fill(idsArray, row, row + n, 0);
          }
        } else if (pageUsesDictionary && !valuesWritten) {
          if (idsOut == null) {
            idsOut = out.reserveDictionaryIds(total);
            idsArray = idsOut instanceof OnHeapColumnVector onHeap && SparkColumnMemory.AVAILABLE
                ? SparkColumnMemory.ints(onHeap) : null;
            if (idsArray != null) {
              Arrays.fill(idsArray, 0, row, 0);
            }
          }
          if (!mixed && idsArray != null) {
            ids.read(idsArray, row, n);
            checkIds(idsArray, row, n);
          } else {
            readIds(present);
            spreadInts(idScratch, mixed, n, idsArray, idsOut, row);
          }
        } else if (pageUsesDictionary) {
          readIds(present);
          writeDictionaryValues(out, row, n, mixed);
        } else {
          if (!valuesWritten && idsOut != null && row > 0) {
            decodeEarlierIds(out, idsOut, row); // a plain page after dictionary pages in one batch
          }
          valuesWritten = true;
          writePlain(out, row, n, present, !mixed);
        }
        if (mixed) {
          for (int i = 0; i < n; i++) {
            if (defined[i] == 0) {
              out.putNull(row + i);
            }
          }
        }
        row += n;
      }
    }
    out.setDictionary(!valuesWritten && idsOut != null ? new ParquetDictionary(dictionary, false) : null);
  }

  private void grow(int total) {
    if (defined.length < total) {
      defined = new int[total];
      idScratch = new int[total];
      intScratch = new int[total];
      longScratch = kind == LONG || kind == DOUBLE ? new long[total] : longScratch;
    }
  }

  private void readIds(int present) throws IOException {
    ids.read(idScratch, 0, present);
    checkIds(idScratch, 0, present);
  }

  /** Every id just read lies inside the dictionary (the decoder's running maximum says so below width 32). */
  private void checkIds(int[] a, int from, int n) throws IOException {
    int bad;
    if (ids.width() < 32) {
      bad = dictionarySize - 1 - ids.takeMax();
    } else {
      bad = 0;
      for (int i = from; i < from + n; i++) {
        bad |= (dictionarySize - 1 - a[i]) | a[i]; // negative for an id outside the dictionary
      }
    }
    if (bad < 0) {
      throw new IOException("malformed Parquet page in column " + column + ": a dictionary id outside the "
          + dictionarySize + "-entry dictionary");
    }
  }

  /** The run's ids ({@code src}, one per present row) to rows {@code [row, row + n)}; 0 on null rows. */
  private void spreadInts(int[] src, boolean mixed, int n, int[] dstArray, WritableColumnVector dst, int row) {
    if (!mixed) {
      if (dstArray != null) {
        System.arraycopy(src, 0, dstArray, row, n);
      } else {
        dst.putInts(row, n, src, 0);
      }
      return;
    }
    if (dstArray != null) {
      for (int i = 0, j = 0; i < n; i++) {
        dstArray[row + i] = defined[i] != 0 ? src[j++] : 0;
      }
      return;
    }
    int[] spread = intScratch;
    for (int i = 0, j = 0; i < n; i++) {
      spread[i] = defined[i] != 0 ? src[j++] : 0;
    }
    dst.putInts(row, n, spread, 0);
  }

  private void writePlain(WritableColumnVector out, int row, int n, int present, boolean allPresent)
      throws IOException {
    switch (kind) {
      case INT, FLOAT -> {
        needPlain(4L * present);
        if (allPresent) {
          if (kind == INT) {
            out.putIntsLittleEndian(row, n, plain, plainPos);
          } else {
            out.putFloatsLittleEndian(row, n, plain, plainPos);
          }
        } else {
          int[] spread = intScratch;
          for (int i = 0, p = plainPos; i < n; i++) {
            if (defined[i] != 0) {
              spread[i] = (int) INT_LE.get(plain, p);
              p += 4;
            } else {
              spread[i] = 0;
            }
          }
          if (kind == INT) {
            out.putInts(row, n, spread, 0);
          } else {
            for (int i = 0; i < n; i++) {
              out.putFloat(row + i, Float.intBitsToFloat(spread[i]));
            }
          }
        }
        plainPos += 4 * present;
      }
      case LONG, DOUBLE -> {
        needPlain(8L * present);
        if (allPresent) {
          if (kind == LONG) {
            out.putLongsLittleEndian(row, n, plain, plainPos);
          } else {
            out.putDoublesLittleEndian(row, n, plain, plainPos);
          }
        } else {
          long[] spread = longScratch;
          for (int i = 0, p = plainPos; i < n; i++) {
            if (defined[i] != 0) {
              spread[i] = (long) LONG_LE.get(plain, p);
              p += 8;
            } else {
              spread[i] = 0;
            }
          }
          if (kind == LONG) {
            out.putLongs(row, n, spread, 0);
          } else {
            for (int i = 0; i < n; i++) {
              out.putDouble(row + i, Double.longBitsToDouble(spread[i]));
            }
          }
        }
        plainPos += 8 * present;
      }
      default -> {
        for (int i = 0; i < n; i++) {
          if (allPresent || defined[i] != 0) {
            needPlain(4);
            int length = (int) INT_LE.get(plain, plainPos);
            plainPos += 4;
            if (length < 0) {
              throw new IOException("malformed Parquet page in column " + column + ": a value of length " + length);
            }
            needPlain(length);
            out.putByteArray(row + i, plain, plainPos, length);
            plainPos += length;
          }
        }
      }
    }
  }

  private void needPlain(long bytes) throws IOException {
    if (plainPos + bytes > plainEnd) {
      throw new IOException("malformed Parquet page in column " + column + ": its values end before its row count");
    }
  }

  /** Dictionary values (not ids) for rows {@code [row, row + n)}: this batch already holds plain values. */
  private void writeDictionaryValues(WritableColumnVector out, int row, int n, boolean mixed) {
    for (int i = 0, j = 0; i < n; i++) {
      if (!mixed || defined[i] != 0) {
        putDictionaryValue(out, row + i, idScratch[j++]);
      }
    }
  }

  /** Rows {@code [0, rows)} hold dictionary ids; replace them by their values (rare: a chunk whose dictionary
   * filled up, so later pages are plain, with the switch inside one batch). */
  private void decodeEarlierIds(WritableColumnVector out, WritableColumnVector idsOut, int rows) {
    for (int i = 0; i < rows; i++) {
      if (!out.isNullAt(i)) {
        putDictionaryValue(out, i, idsOut.getInt(i));
      }
    }
  }

  private void putDictionaryValue(WritableColumnVector out, int row, int id) {
    switch (kind) {
      case INT -> out.putInt(row, dictionary.decodeToInt(id));
      case LONG -> out.putLong(row, dictionary.decodeToLong(id));
      case FLOAT -> out.putFloat(row, dictionary.decodeToFloat(id));
      case DOUBLE -> out.putDouble(row, dictionary.decodeToDouble(id));
      default -> {
        byte[][] values = binaryDictionary();
        out.putByteArray(row, values[id], 0, values[id].length);
      }
    }
  }

  private byte[][] binaryDictionary() {
    if (dictionaryValues == null) {
      byte[][] values = new byte[dictionarySize][];
      for (int i = 0; i < dictionarySize; i++) {
        values[i] = dictionary.decodeToBinary(i).getBytes();
      }
      dictionaryValues = values;
    }
    return (byte[][]) dictionaryValues;
  }

  private void nextPage() throws IOException {
    DataPage page = pages.readPage();
    if (page == null) {
      throw new IOException("malformed Parquet column " + column + ": its pages hold fewer rows than its row group");
    }
    if (page instanceof DataPageV1 v1) {
      byte[] bytes = v1.getBytes().toByteArray();
      int pos = 0;
      if (nullable) {
        if (v1.getDlEncoding() != Encoding.RLE) {
          throw new IOException("Parquet column " + column + ": definition levels encoded as " + v1.getDlEncoding());
        }
        if (bytes.length < 4) {
          throw new IOException("malformed Parquet page in column " + column + ": no definition levels");
        }
        int length = (int) INT_LE.get(bytes, 0);
        if (length < 0 || 4L + length > bytes.length) {
          throw new IOException("malformed Parquet page in column " + column + ": definition levels of " + length
              + " bytes in a page of " + bytes.length);
        }
        levels.init(bytes, 4, 4 + length, 1);
        pos = 4 + length;
      }
      startValues(v1.getValueEncoding(), bytes, pos, v1.getValueCount());
    } else if (page instanceof DataPageV2 v2) {
      if (nullable) {
        byte[] levelBytes = v2.getDefinitionLevels().toByteArray();
        levels.init(levelBytes, 0, levelBytes.length, 1);
      }
      startValues(v2.getDataEncoding(), v2.getData().toByteArray(), 0, v2.getValueCount());
    } else {
      throw new IOException("Parquet column " + column + ": unknown page kind " + page.getClass().getName());
    }
  }

  @SuppressWarnings("deprecation")
  private void startValues(Encoding encoding, byte[] bytes, int pos, int rows) throws IOException {
    if (rows < 0) {
      throw new IOException("malformed Parquet page in column " + column + ": " + rows + " values");
    }
    pageRowsLeft = rows;
    if (encoding == Encoding.PLAIN_DICTIONARY || encoding == Encoding.RLE_DICTIONARY) {
      if (dictionary == null) {
        throw new IOException("Parquet column " + column + ": a dictionary-encoded page without a dictionary");
      }
      if (pos >= bytes.length) {
        // A page of only nulls may hold no ids at all.
        ids.init(bytes, pos, pos, 0);
      } else {
        ids.init(bytes, pos + 1, bytes.length, bytes[pos] & 0xff);
      }
      pageUsesDictionary = true;
    } else if (encoding == Encoding.PLAIN) {
      plain = bytes;
      plainPos = pos;
      plainEnd = bytes.length;
      pageUsesDictionary = false;
    } else {
      throw new IOException("Parquet column " + column + ": values encoded as " + encoding
          + ", which its chunk's metadata did not list");
    }
  }

}
