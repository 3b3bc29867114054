package dev.idempotency.examples.springboot;

import org.springframework.test.context.TestPropertySource;

/** The contract on the example app's default database, H2 in memory, migrated by Flyway. */
@TestPropertySource(
    properties = "spring.datasource.url=jdbc:h2:mem:boot-contract;DB_CLOSE_DELAY=-1")
class H2SpringBootTest extends SpringBootContract {}
