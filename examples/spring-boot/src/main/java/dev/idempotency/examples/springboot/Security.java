package dev.idempotency.examples.springboot;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * HTTP Basic with two callers, alice and bob: each one's keys are its own scope. Health is public;
 * the {@code idempotency} Actuator endpoint (stuck keys, and settling them) is for the operator
 * {@code ops} alone; everything else needs a caller. CSRF is off, as for any API called with
 * credentials per request.
 */
@Configuration(proxyBeanMethods = false)
class Security {
  @Bean
  SecurityFilterChain api(HttpSecurity http) throws Exception {
    return http.authorizeHttpRequests(
            a ->
                a.requestMatchers("/actuator/health/**")
                    .permitAll()
                    .requestMatchers("/actuator/idempotency/**")
                    .hasRole("ADMIN")
                    .anyRequest()
                    .authenticated())
        .httpBasic(Customizer.withDefaults())
        .csrf(c -> c.disable())
        .build();
  }

  @Bean
  UserDetailsService callers() {
    return new InMemoryUserDetailsManager(
        User.withUsername("alice").password("{noop}alice-secret").roles("API").build(),
        User.withUsername("bob").password("{noop}bob-secret").roles("API").build(),
        User.withUsername("ops").password("{noop}ops-secret").roles("ADMIN").build());
  }
}
