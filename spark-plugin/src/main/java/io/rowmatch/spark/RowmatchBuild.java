package io.rowmatch.spark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;

/**
 * What this jar was built for, from {@code io/rowmatch/spark/rowmatch-build.properties} (written by Maven: see
 * spark-plugin/pom.xml). Touches no Spark API, so it works in a Spark of any line, including one this jar was
 * not built for.
 */
public record RowmatchBuild(String sparkLine, String sparkVersion, String scalaBinaryVersion, String version,
    List<String> supportedLines) {
  public static final String RESOURCE = "rowmatch-build.properties";

  private static final RowmatchBuild CURRENT = load();

  /** This jar's build. */
  public static RowmatchBuild current() {
    return CURRENT;
  }

  /** The same Rowmatch as built for another Spark line (the jar to use there); its exact Spark version unknown. */
  public RowmatchBuild forLine(String line) {
    return line.equals(sparkLine) ? this : new RowmatchBuild(line, line, scalaBinaryVersion, version, supportedLines);
  }

  /** The shaded jar's file name, as spark-plugin/pom.xml's finalName makes it. */
  public String shadedJarName() {
    return "rowmatch-spark-plugin-spark" + sparkLine + "_" + scalaBinaryVersion + "-" + version + "-shaded.jar";
  }

  /** A Spark version's line: "4.2" for "4.2.0" or "4.2.1-SNAPSHOT"; the whole string when it has no minor part. */
  public static String lineOf(String sparkVersion) {
    String[] parts = sparkVersion.trim().split("[.\\-+]", 3);
    return parts.length >= 2 ? parts[0] + "." + parts[1] : sparkVersion.trim();
  }

  private static RowmatchBuild load() {
    Properties p = new Properties();
    try (InputStream in = RowmatchBuild.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("io/rowmatch/spark/" + RESOURCE + " is missing from the Rowmatch jar: it"
            + " was not built by Maven (mvn -pl spark-plugin -am package)");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read io/rowmatch/spark/" + RESOURCE, e);
    }
    return new RowmatchBuild(p.getProperty("spark.line"), p.getProperty("spark.version"),
        p.getProperty("scala.binary.version"), p.getProperty("rowmatch.version"),
        List.of(p.getProperty("spark.lines").split(",")));
  }
}
