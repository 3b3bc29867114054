package dev.idempotency.examples.bootcrash;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The application {@link AbstractBootCrashIT} runs as child JVMs and kills: the starter over the
 * test's database, an endpoint {@code POST /ledger/**} that writes one ledger row per request,
 * through {@code JdbcTemplate} ({@code /ledger/jdbc}) or JPA ({@code /ledger/jpa}), see {@link
 * LedgerController}. The endpoint rule comes from the properties the test passes, as an
 * application's would: {@code in-one-transaction} unset (one transaction on the JDBC store), or
 * {@code false} (stepped: the claim and the completion in commits of their own), the lifecycle
 * whose crash window the test shows for comparison.
 *
 * <p>Lines on stdout: {@code PORT <port>} once it serves; {@code WRITTEN <key>} after each
 * controller's write (see {@link LedgerController}).
 */
@SpringBootApplication
public class LedgerApplication {
  /** The scope of every request: no caller authenticates. */
  static final String SCOPE = "boot-crash";

  public static void main(String[] args) {
    SpringApplication.run(LedgerApplication.class, args);
  }

  /** Spring Security is on the class path (the example app's); this app lets every request in. */
  @Bean
  SecurityFilterChain everyoneIn(HttpSecurity http) throws Exception {
    return http.authorizeHttpRequests(a -> a.anyRequest().permitAll())
        .csrf(c -> c.disable())
        .build();
  }

  /** The test reads the random port from here. */
  @EventListener
  void serving(ApplicationReadyEvent event) {
    Environment env = event.getApplicationContext().getEnvironment();
    LedgerController.say("PORT " + env.getProperty("local.server.port"));
  }
}
