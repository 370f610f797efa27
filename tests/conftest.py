"""Test set-up: make tests/ importable, register the real mail server fixtures, and mark
the tests that start real servers or a browser, or that are slow, so the fast tier
(`pytest -m "not servers and not browser and not slow"`, README.md) leaves them out without
each test having to say so."""

import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
# pyproject.toml sets no pythonpath; put the checkout and tests/ on sys.path ourselves.
for _path in (_HERE.parent, _HERE):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

pytest_plugins = ["servers", "campaignfixtures"]

# the fixtures (tests/servers.py, tests/test_browser.py) that start Dovecot, aiosmtpd or
# Chromium, or make the certificates only those servers use: a test asking for one,
# directly or through another fixture, gets the marker (the OAuth token server and the
# echoing IMAP server are threads of the test's own process, and stay in the fast tier)
SERVER_FIXTURES = frozenset({
    "tls_ca", "dovecot", "imap_account", "smtp_server", "smtps_server", "smtp_oauth_server",
    "dovecot_oauth", "oauth_account",
})
BROWSER_FIXTURES = frozenset({"browser"})

# modules whose tests play whole campaigns or demos to the end (a module-scoped fixture
# plays several), or install a ruleset package with pip: every test in them is slow
SLOW_MODULES = frozenset({
    "test_audit", "test_audit_forgeries", "test_audit_mail", "test_audit_reference", "test_audit_shape",
    "test_demo", "test_demo_judge", "test_demo_rulesets", "test_example_plugin", "test_gm_end", "test_house_ruleset_from_docs",
    "test_rulesets_kept_apart", "test_season_by_mail_alone", "test_signup_demo", "test_unleashed_differential",
    "test_wheel",
})
# single tests of a few seconds each elsewhere (parameters aside): whole campaigns by mail,
# hostile mail of a million lines, searches over random boards
SLOW_TESTS = frozenset({
    "test_admin_campaign::test_a_campaign_with_a_replacement_a_drop_a_pause_and_an_observer_runs_by_mail",
    "test_admin_rulesets::test_a_seat_changes_hands_and_the_next_turn_is_played_by_its_new_holder",
    "test_advanced_mail_alone::test_4_4_from_the_text_of_the_welcome_and_the_reports_alone_a_player_writes_legal_orders_and_builds",
    "test_analysis::test_any_board_is_analysed_consistently_or_refused_with_a_reason",
    "test_archive_incremental::test_crowded_player_pages_change_only_with_a_placing_until_the_end",
    "test_audit_limits::test_25_a_deck_of_100000_cards_is_refused_before_it_is_shuffled",
    "test_calendar_who::test_gm_deadline_and_resume_carry_the_new_deadline_to_the_players_still_in",
    "test_campaign_flow::test_whole_campaign_from_eml_files_matches_the_rules_turn_by_turn",
    "test_crash_safety::test_crash_inside_resolve_then_rerun_resolves_once",
    "test_design::test_designed_boards_always_pass_board_validation",
    "test_dice_by_mail::test_a_whole_dice_campaign_by_mail",
    "test_docs::test_every_relative_link_resolves_to_a_file_and_heading_in_the_repository",
    "test_dropped_player_report::test_a_dropped_players_reports_end_with_no_order_to_send",
    "test_fixed_at_start::test_2_4_a_turn_of_forced_numbers_waits_for_its_deadline",
    "test_gm_report::test_24_the_gm_report_mail_is_words_in_its_text_and_html_parts",
    "test_gm_report::test_24_the_gm_report_names_every_players_square_and_place",
    "test_hostile_mail::test_3_hostile_mail_header_of_a_million_short_lines_is_bounded",
    "test_hostile_mail::test_3_hostile_mail_of_200000_header_fields_is_bounded",
    "test_hostile_mail::test_3_hostile_mail_subject_of_100000_encoded_words_under_max_message_bytes_is_bounded",
    "test_mail_headers::test_every_mail_kind_in_the_templates_folder_is_sent",
    "test_mail_templates_per_ruleset::test_a_ruleset_without_templates_gets_every_mail_from_the_generic_ones",
    "test_packaging::test_wheel_carries_templates_sample_boards_and_docs",
    "test_password_guessing::test_500_forged_guesses_then_the_right_password_cost_at_most_100_checks",
    "test_plugins_doc::test_gm_demo_plays_the_page_s_robots_to_the_end_and_its_archive_audits",
    "test_plugins_doc::test_the_page_s_ruleset_plays_a_campaign_by_mail_to_the_end_and_its_archive_audits",
    "test_plugins_doc::test_the_page_s_unit_tests_pass_under_pytest",
    "test_proof_shown::test_5_above_inline_players_a_report_shows_its_reader_s_receipt_and_attaches_the_rest",
    "test_proof_shown::test_5_every_welcome_shows_the_game_commitment_and_how_to_use_it",
    "test_quiet_weeks_from_cron::test_gm_turn_resolves_a_quiet_week_where_silence_is_an_order_and_exits_0",
    "test_reports_large::test_2_6_large_report_attaches_every_players_start_and_end_on_every_board",
    "test_reports_large::test_large_report_table_is_stored_once_per_turn_and_sent_whole_in_every_copy",
    "test_rules_registry::test_registry_a_distribution_installed_by_pip_is_found_by_one_scan_with_its_origin",
    "test_ruleset_origin::test_origin_the_game_text_commits_to_the_distribution_the_ruleset_came_from",
    "test_season_from_cron::test_a_season_from_cron_through_a_pause_a_replacement_and_a_reply_to_a_refusal",
    "test_seat_handover_mail::test_a_new_holder_gets_the_rulesets_own_welcome_with_the_standing_order_spelled_out",
    "test_seat_handover_mail::test_a_new_holders_welcome_orders_for_the_open_turn_never_turn_1",
    "test_seat_handover_mail::test_reports_and_archive_say_the_turn_after_the_handover_played_the_order_the_former_holder_left",
    "test_send_memory::test_gm_send_into_a_maildir_holds_one_message_not_the_turn",
    "test_signup_hostile::test_3_1_a_join_bomb_from_one_address_changes_nothing_but_the_caps",
    "test_signup_hostile::test_3_1_auto_replies_and_loops_are_kept_and_never_answered",
    "test_signup_hostile::test_3_1_replays_are_recorded_and_never_applied_twice",
    "test_signup_limits::test_a_request_is_judged_beside_the_places_it_concerns_not_every_place_held",
    "test_signup_rulesets::test_3_1_every_ruleset_takes_its_players_by_mail",
    "test_toy_ruleset::test_toy_ruleset_plays_a_whole_campaign_by_mail_through_start_turn_and_publish",
    "test_trust_files::test_2_hundred_thousand_snakes_are_refused_quickly",
    "test_trust_files::test_2_more_items_than_the_board_holds_are_refused_in_one_line",
    "test_trust_files::test_3_every_name_and_title_in_the_archive_is_isolated",
    "test_turn::test_4_5_turn_and_status_agree_a_dice_turn_waits_for_its_deadline_and_say_who_wrote_what",
    "test_unleashed_campaign::test_6_a_campaign_runs_to_its_end_by_mail_on_maildir",
    "test_unleashed_campaign::test_the_same_demo_seed_plays_the_same_game_whatever_the_hash_seed",
    "test_unleashed_leaks::test_the_demo_deals_hands_keeps_reactions_and_skips_lines",
    "test_unleashed_limits::test_6_7_the_issues_campaign_starts_and_gm_resolve_plays_its_chains",
    "test_unleashed_mail_alone::test_24_every_ready_order_is_accepted_and_its_first_line_played",
    "test_unleashed_mail_alone::test_24_every_ready_play_line_changes_something",
    "test_upgrades::test_a_campaign_an_earlier_release_began_is_played_on_ended_revealed_and_audited",
    "test_upgrades::test_a_new_campaign_keeps_no_backup_and_an_up_to_date_one_makes_none",
})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if used & SERVER_FIXTURES and not item.get_closest_marker("servers"):
            item.add_marker(pytest.mark.servers)
        if used & BROWSER_FIXTURES and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)
        module = item.nodeid.partition("::")[0].rpartition("/")[2].removesuffix(".py")
        test = f"{module}::{getattr(item, 'originalname', item.name)}"
        if (module in SLOW_MODULES or test in SLOW_TESTS) and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
