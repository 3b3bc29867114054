#!/usr/bin/env bash
# Checks that docs/getting-started.md's dependency snippet works as printed: installs the build into the local Maven
# repository (-Pdemo: no tests, javadoc or source jars), makes a throwaway project whose pom.xml holds that snippet
# verbatim (plus H2), compiles a small program against it, and runs it: an engine on the JDBC store over H2 that
# runs a piece of work once and replays its result. Exits non-zero if any step fails.
#
# Usage: bash scripts/consumer-check.sh [--no-install]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [ "${1:-}" != --no-install ]; then
  echo "[consumer-check] installing the build (./mvnw -Pdemo install) ..." >&2
  ./mvnw -B -ntp -q -Pdemo install
fi

snippet=$(sed -n '/consumer-snippet:begin/,/consumer-snippet:end/p' docs/getting-started.md | sed '/^<!--/d; /^```/d')
[ -n "$snippet" ] || { echo "[consumer-check] no snippet between the markers in docs/getting-started.md" >&2; exit 1; }
h2=$(sed -n 's:.*<h2.version>\(.*\)</h2.version>.*:\1:p' pom.xml)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/main/java/consumer"
# the snippet's <dependencies> gets H2 as the program's database; everything else is the snippet as printed
{
  cat <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>consumer</groupId>
  <artifactId>consumer</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
POM
  printf '%s\n' "$snippet" | sed "s:</dependencies>\$:  <dependency><groupId>com.h2database</groupId><artifactId>h2</artifactId><version>$h2</version></dependency>\n</dependencies>:"
  echo '</project>'
} > "$work/pom.xml"

cat > "$work/src/main/java/consumer/Main.java" <<'JAVA'
package consumer;

import dev.idempotency.Fingerprint;
import dev.idempotency.RecordId;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotentCall;
import dev.idempotency.core.ResultCodec;
import dev.idempotency.spi.KeyStore;
import dev.idempotency.store.jdbc.JdbcKeyStore;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcDataSource;

public final class Main {
  public static void main(String[] args) throws Exception {
    JdbcDataSource dataSource = new JdbcDataSource();
    dataSource.setURL("jdbc:h2:mem:consumer;DB_CLOSE_DELAY=-1");
    AtomicInteger runs = new AtomicInteger();
    KeyStore store = JdbcKeyStore.builder(dataSource).createSchemaIfMissing().build();
    try (IdempotencyEngine engine = IdempotencyEngine.builder(store).build()) {
      IdempotentCall<String> call = IdempotentCall.of(engine, ResultCodec.utf8());
      RecordId id = RecordId.of("consumer", "order-1");
      Fingerprint fp = Fingerprint.of("order-1".getBytes(StandardCharsets.UTF_8));
      String first = call.run(id, fp, execution -> "charged " + runs.incrementAndGet());
      String again = call.run(id, fp, execution -> "charged " + runs.incrementAndGet());
      if (!first.equals("charged 1") || !again.equals(first) || runs.get() != 1) {
        throw new AssertionError("expected one run and a replay, got " + first + " / " + again);
      }
      System.out.println("consumer: ran once (" + first + "), replayed the second call");
    }
  }
}
JAVA

echo "[consumer-check] building the throwaway project in $work ..." >&2
cd "$work"
"$root/mvnw" -B -ntp -q -f "$work/pom.xml" package dependency:build-classpath -Dmdep.outputFile=cp.txt
java -cp "target/classes:$(cat cp.txt)" consumer.Main
echo "[consumer-check] the snippet in docs/getting-started.md works as printed" >&2
