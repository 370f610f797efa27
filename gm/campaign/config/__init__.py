"""campaign.yaml: the values it holds (values), who takes part as it says (people), and
reading and checking the file into them (reading)."""
