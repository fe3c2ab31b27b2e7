package io.rowmatch.spark;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.SparkSessionExtensionsProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * Says at session start, in the driver's log, when Rowmatch is not set up the way the user meant. Spark finds
 * this class through ServiceLoader ({@code META-INF/services/org.apache.spark.sql.SparkSessionExtensionsProvider})
 * whenever the Rowmatch jar is on the driver's class path. It injects nothing: Rowmatch stays off unless
 * {@code spark.sql.extensions} names {@link RowmatchExtensions}. It catches two mistakes that Spark 4.1 itself
 * reports only as one WARN line or as task failures:
 * <ul>
 *   <li>{@code spark.sql.extensions} names a Rowmatch class that is not the entry point (a typo): Spark logs
 *       "Cannot use ... to configure session extensions" and runs everything vanilla. Logged as an ERROR.</li>
 *   <li>the application runs on a cluster but ships no Rowmatch jar to its executors ({@code spark.jars} /
 *       {@code --jars}, {@code spark.executor.extraClassPath}): every task of a Rowmatch operator would fail with
 *       ClassNotFoundException. Logged as a WARN, since the jar may be installed on every executor.</li>
 * </ul>
 * It also holds the Spark-line check that {@link RowmatchExtensions} runs before injecting anything: a jar built for
 * another Spark line would fail inside tasks with NoSuchMethodError, so Rowmatch stays off with one ERROR instead.
 */
public final class RowmatchSetupCheck extends AbstractFunction1<SparkSessionExtensions, BoxedUnit>
    implements SparkSessionExtensionsProvider {
  private static final Logger LOG = LoggerFactory.getLogger(RowmatchSetupCheck.class);
  private static final String ENTRY = RowmatchExtensions.class.getName();

  /**
   * Test-only SparkConf key (internal, declared in RowmatchConf): the Spark line this jar claims it was built for, in
   * place of its rowmatch-build.properties, so a test can run "a jar of another line" in this JVM.
   */
  public static final String BUILT_FOR_LINE_OVERRIDE = "spark.rowmatch.test.builtForSparkLine";

  /** One finding; {@code certain}: Rowmatch is surely not doing what was asked (else: probably). */
  public record Problem(String message, boolean certain) {}

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    SparkEnv env = SparkEnv.get();
    if (env != null) {
      for (Problem p : problems(env.conf(), Thread.currentThread().getContextClassLoader(), driverJar())) {
        if (p.certain()) {
          LOG.error("Rowmatch setup: {}", p.message());
        } else {
          LOG.warn("Rowmatch setup: {}", p.message());
        }
      }
    }
    return BoxedUnit.UNIT;
  }

  /** What is wrong with this application's Rowmatch settings; empty when nothing is. */
  public static List<Problem> problems(SparkConf conf, ClassLoader loader, Path driverJar) {
    List<Problem> found = new ArrayList<>();
    boolean enabled = false;
    for (String raw : conf.get("spark.sql.extensions", "").split(",")) {
      String name = raw.trim();
      if (name.equals(ENTRY)) {
        enabled = loads(name, loader);
      } else if (name.toLowerCase(Locale.ROOT).contains("rowmatch")) {
        found.add(new Problem("spark.sql.extensions names '" + name + "', which is not Rowmatch's entry point, so"
            + " Spark ignores it and Rowmatch is OFF for this session. Use spark.sql.extensions=" + ENTRY, true));
      }
    }
    String master = conf.get("spark.master", "local");
    if (enabled && !master.startsWith("local") && !shipped(conf, driverJar)) {
      found.add(new Problem("the master is " + master + " but neither spark.jars (--jars) nor"
          + " spark.executor.extraClassPath names a Rowmatch jar" + (driverJar == null ? "" : " (the driver loaded"
          + " Rowmatch from " + driverJar + ")") + ". Unless that jar is installed on every executor, the tasks of"
          + " Rowmatch operators will fail with ClassNotFoundException: io.rowmatch... Ship it with --jars"
          + " " + RowmatchBuild.current().shadedJarName() + ".", false));
    }
    return found;
  }

  /**
   * Why a jar of {@code build} must not run on Spark {@code runningVersion}, or null when it may: the Spark lines
   * differ in internal APIs the plugin calls. Names both versions and the jar to use instead.
   */
  public static String lineMismatch(RowmatchBuild build, String runningVersion) {
    String running = RowmatchBuild.lineOf(runningVersion);
    if (running.equals(build.sparkLine())) {
      return null;
    }
    String instead = build.supportedLines().contains(running)
        ? "Use " + build.forLine(running).shadedJarName() + " (built with -Pspark-" + running + ") instead."
        : "This Rowmatch version has jars for Spark " + String.join(", ", build.supportedLines()) + " only.";
    String against = build.sparkVersion().equals(build.sparkLine()) ? "" : ", against Spark " + build.sparkVersion();
    return "this Rowmatch jar was built for Spark " + build.sparkLine() + " (" + build.shadedJarName() + against
        + ") but the application runs Spark " + runningVersion + ": Rowmatch is"
        + " OFF for this session and every query runs as vanilla Spark. " + instead;
  }

  /**
   * Whether Rowmatch must stay off in this session because the jar was built for another Spark line; logs the one
   * ERROR saying so. {@code conf} may be null (no override then).
   */
  static boolean offForThisSpark(SparkConf conf, String runningVersion) {
    RowmatchBuild build = RowmatchBuild.current();
    String claimed = conf == null ? null : conf.get(BUILT_FOR_LINE_OVERRIDE, null);
    String why = lineMismatch(claimed == null ? build : build.forLine(claimed), runningVersion);
    if (why != null) {
      LOG.error("Rowmatch setup: {}", why);
    }
    return why != null;
  }

  private static boolean loads(String name, ClassLoader loader) {
    try {
      Class.forName(name, false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Whether the executors get a Rowmatch jar from the application, or the driver's copy is installed Spark-wide. */
  private static boolean shipped(SparkConf conf, Path driverJar) {
    String driverName = driverJar == null ? null : driverJar.getFileName().toString();
    for (String key : new String[] {"spark.jars", "spark.yarn.dist.jars", "spark.executor.extraClassPath"}) {
      for (String entry : conf.get(key, "").split("[,:" + java.io.File.pathSeparator + "]")) {
        String file = entry.trim();
        file = file.substring(file.lastIndexOf('/') + 1);
        if (file.startsWith("rowmatch-spark") || (driverName != null && file.equals(driverName))) {
          return true;
        }
      }
    }
    String sparkHome = System.getenv("SPARK_HOME");
    return driverJar != null && sparkHome != null && driverJar.startsWith(Path.of(sparkHome, "jars"));
  }

  /** The jar (or class folder) the driver loaded Rowmatch from, when it can tell. */
  private static Path driverJar() {
    try {
      CodeSource source = RowmatchExtensions.class.getProtectionDomain().getCodeSource();
      if (source == null || source.getLocation() == null) {
        return null;
      }
      Path path = Path.of(source.getLocation().toURI());
      return Files.exists(path) ? path : null;
    } catch (URISyntaxException | IllegalArgumentException | SecurityException e) {
      return null;
    }
  }
}
